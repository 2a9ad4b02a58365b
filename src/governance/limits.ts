// Runs per minute and model tokens per day, per person and per channel, counted in the
// store (atomic increments), so they hold across restarts and across processes. Windows
// are fixed: a minute by the clock, a day in UTC; a counter key names its window.
import type { Surface } from "../contracts/types.js";
import type { KeyValueStore } from "../memory/types.js";
import type { Subject } from "./access.js";
import type { LimitSettings, Settings } from "./settings-schema.js";

export type LimitKind = "runs" | "tokens";
export type LimitScope = "user" | "channel";

export type LimitCheck =
  | { readonly kind: "ok" }
  | { readonly kind: "limited"; readonly limit: LimitKind; readonly scope: LimitScope; readonly max: number; readonly resetsAt: number };

/** A daily token limit that is reached. */
export type TokensSpent = Extract<LimitCheck, { kind: "limited" }> & { readonly limit: "tokens" };

const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;
/** A counter outlives its window a little, so a late read of the window still finds it. */
const KEEP_AFTER_WINDOW_MS = MINUTE_MS;

export function windowOf(limit: LimitKind, now: number): { readonly index: number; readonly resetsAt: number } {
  const size = limit === "runs" ? MINUTE_MS : DAY_MS;
  const index = Math.floor(now / size);
  return { index, resetsAt: (index + 1) * size };
}

const userCounterKey = (surface: Surface, userId: string, limit: LimitKind, now: number) =>
  `limit:${limit}:user:${surface}:${userId}:${windowOf(limit, now).index}`;
const channelCounterKey = (surface: Surface, channelId: string, limit: LimitKind, now: number) =>
  `limit:${limit}:channel:${surface}:${channelId}:${windowOf(limit, now).index}`;

interface Counter {
  readonly scope: LimitScope;
  readonly key: (limit: LimitKind, now: number) => string;
  readonly limits: LimitSettings;
}

/** The counters that apply to this person here, with the limits each one is held to. */
function countersFor(
  settings: Settings,
  subject: Subject,
  admin: boolean,
): { readonly counters: readonly Counter[]; readonly enforced: boolean } {
  const userLimits = admin ? (settings.limits.admins ?? {}) : settings.limits.user;
  const counters: Counter[] = [
    {
      scope: "user",
      key: (limit, now) => userCounterKey(subject.surface, subject.userId, limit, now),
      limits: userLimits,
    },
  ];
  const channelId = subject.channelId;
  if (channelId !== undefined) {
    counters.push({
      scope: "channel",
      key: (limit, now) => channelCounterKey(subject.surface, channelId, limit, now),
      limits: settings.limits.channel,
    });
  }
  return { counters, enforced: !admin || settings.limits.admins !== undefined };
}

/** The counters counting these people and channels now (this minute's runs, today's tokens): what a removed workspace leaves in the limits. */
export function countersNow(surface: Surface, people: readonly string[], channels: readonly string[], now: number): string[] {
  return (["runs", "tokens"] as const).flatMap((limit) => [
    ...people.map((userId) => userCounterKey(surface, userId, limit, now)),
    ...channels.map((channelId) => channelCounterKey(surface, channelId, limit, now)),
  ]);
}

const maxOf = (limits: LimitSettings, limit: LimitKind) => (limit === "runs" ? limits.runsPerMinute : limits.tokensPerDay);

function ttlFor(limit: LimitKind, now: number): number {
  return windowOf(limit, now).resetsAt - now + KEEP_AFTER_WINDOW_MS;
}

/** The daily limit `counter` reaches with `used` tokens counted, if it has one and they reach it. */
function tokensSpent(counter: Counter, used: number, now: number): TokensSpent | undefined {
  const max = maxOf(counter.limits, "tokens");
  if (max === undefined || used < max) return undefined;
  return { kind: "limited", limit: "tokens", scope: counter.scope, max, resetsAt: windowOf("tokens", now).resetsAt };
}

/** Whether a daily token limit of this person or this channel is reached; counts nothing. */
export async function checkDailyTokens(
  store: KeyValueStore,
  settings: Settings,
  subject: Subject,
  admin: boolean,
  now: number,
): Promise<{ readonly kind: "ok" } | TokensSpent> {
  const { counters, enforced } = countersFor(settings, subject, admin);
  if (!enforced) return { kind: "ok" };
  for (const counter of counters) {
    if (maxOf(counter.limits, "tokens") === undefined) continue;
    const spent = tokensSpent(counter, await store.increment(counter.key("tokens", now), 0, ttlFor("tokens", now)), now);
    if (spent) return spent;
  }
  return { kind: "ok" };
}

/**
 * Counts one run against the per-minute limits unless the daily tokens are already spent.
 * A refused run is counted too, so hammering does not help; the window still resets on time.
 */
export async function admitRun(
  store: KeyValueStore,
  settings: Settings,
  subject: Subject,
  admin: boolean,
  now: number,
): Promise<LimitCheck> {
  const spent = await checkDailyTokens(store, settings, subject, admin, now);
  if (spent.kind === "limited") return spent;
  const { counters, enforced } = countersFor(settings, subject, admin);
  let refusal: LimitCheck = { kind: "ok" };
  for (const counter of counters) {
    const max = maxOf(counter.limits, "runs");
    const runs = await store.increment(counter.key("runs", now), 1, ttlFor("runs", now));
    if (enforced && max !== undefined && runs > max && refusal.kind === "ok")
      refusal = { kind: "limited", limit: "runs", scope: counter.scope, max, resetsAt: windowOf("runs", now).resetsAt };
  }
  return refusal;
}

/** Adds a run's model tokens; says whether a daily limit is now reached (the run should end). */
export async function recordTokens(
  store: KeyValueStore,
  settings: Settings,
  subject: Subject,
  admin: boolean,
  tokens: number,
  now: number,
): Promise<{ readonly kind: "ok" } | TokensSpent> {
  const { counters, enforced } = countersFor(settings, subject, admin);
  let refusal: { readonly kind: "ok" } | TokensSpent = { kind: "ok" };
  for (const counter of counters) {
    const used = await store.increment(counter.key("tokens", now), Math.max(0, Math.round(tokens)), ttlFor("tokens", now));
    if (enforced && refusal.kind === "ok") refusal = tokensSpent(counter, used, now) ?? refusal;
  }
  return refusal;
}

export interface Allowance {
  readonly scope: LimitScope;
  readonly limit: LimitKind;
  readonly max: number;
  readonly left: number;
  readonly resetsAt: number;
}

/** What is left for this person here, per limit that applies (none when exempt). */
export async function allowances(
  store: KeyValueStore,
  settings: Settings,
  subject: Subject,
  admin: boolean,
  now: number,
): Promise<readonly Allowance[]> {
  const { counters, enforced } = countersFor(settings, subject, admin);
  if (!enforced) return [];
  const found: Allowance[] = [];
  for (const counter of counters) {
    for (const limit of ["runs", "tokens"] as const) {
      const max = maxOf(counter.limits, limit);
      if (max === undefined) continue;
      const used = await store.increment(counter.key(limit, now), 0, ttlFor(limit, now));
      found.push({ scope: counter.scope, limit, max, left: Math.max(0, max - used), resetsAt: windowOf(limit, now).resetsAt });
    }
  }
  return found;
}
