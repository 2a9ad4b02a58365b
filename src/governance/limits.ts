// Runs per minute and model tokens per day, per person and per channel, counted in the
// store (atomic increments), so they hold across restarts and across processes. Windows
// are fixed: a minute by the clock, a day in UTC; a counter key names its window. Each
// workspace counts apart (a person's use in one never spends their allowance in another); what
// an earlier version counted in the same window, under a key without the workspace, still counts.
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

/** A place without a workspace (the console, a DM) counts under `-`. */
const counterKey = (scope: LimitScope, surface: Surface, workspace: string | undefined, id: string, limit: LimitKind, now: number) =>
  `limit:${limit}:${scope}:${surface}:${workspace ?? "-"}:${id}:${windowOf(limit, now).index}`;
/** The key an earlier version counted under: no workspace in it. */
const earlierKey = (scope: LimitScope, surface: Surface, id: string, limit: LimitKind, now: number) =>
  `limit:${limit}:${scope}:${surface}:${id}:${windowOf(limit, now).index}`;

interface Counter {
  readonly scope: LimitScope;
  readonly key: (limit: LimitKind, now: number) => string;
  /** The same counter as an earlier version kept it (no workspace in its key), read and never added to. */
  readonly earlier: (limit: LimitKind, now: number) => string;
  readonly limits: LimitSettings;
}

/** The counters that apply to this person here, with the limits each one is held to. */
function countersFor(
  settings: Settings,
  subject: Subject,
  admin: boolean,
): { readonly counters: readonly Counter[]; readonly enforced: boolean } {
  const userLimits = admin ? (settings.limits.admins ?? {}) : settings.limits.user;
  const { surface, workspace } = subject;
  const counter = (scope: LimitScope, id: string, limits: LimitSettings): Counter => ({
    scope,
    key: (limit, now) => counterKey(scope, surface, workspace, id, limit, now),
    earlier: (limit, now) => earlierKey(scope, surface, id, limit, now),
    limits,
  });
  const counters: Counter[] = [counter("user", subject.userId, userLimits)];
  if (subject.channelId !== undefined) counters.push(counter("channel", subject.channelId, settings.limits.channel));
  return { counters, enforced: !admin || settings.limits.admins !== undefined };
}

/** Adds `by` to the counter's window; its total there, with what an earlier version counted in the same window. */
async function count(store: KeyValueStore, counter: Counter, limit: LimitKind, now: number, by: number): Promise<number> {
  const ttl = ttlFor(limit, now);
  const [counted, before] = await Promise.all([
    store.increment(counter.key(limit, now), by, ttl),
    store.increment(counter.earlier(limit, now), 0, ttl),
  ]);
  return counted + before;
}

/**
 * The counters counting these people and channels of a workspace now (this minute's runs, today's tokens, and what an
 * earlier version counted for them), and those of the window before, which are kept a while after it ended (a run
 * counted just before the minute turned): what a removed workspace leaves in the limits.
 */
export function countersNow(
  surface: Surface,
  workspace: string,
  people: readonly string[],
  channels: readonly string[],
  now: number,
): string[] {
  const subjects = [...people.map((id) => ["user", id] as const), ...channels.map((id) => ["channel", id] as const)];
  return (["runs", "tokens"] as const).flatMap((limit) => {
    const windowBefore = now - (limit === "runs" ? MINUTE_MS : DAY_MS);
    return [now, windowBefore].flatMap((at) =>
      subjects.flatMap(([scope, id]) => [counterKey(scope, surface, workspace, id, limit, at), earlierKey(scope, surface, id, limit, at)]),
    );
  });
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
    const spent = tokensSpent(counter, await count(store, counter, "tokens", now, 0), now);
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
    const runs = await count(store, counter, "runs", now, 1);
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
    const used = await count(store, counter, "tokens", now, Math.max(0, Math.round(tokens)));
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
      const used = await count(store, counter, limit, now, 0);
      found.push({ scope: counter.scope, limit, max, left: Math.max(0, max - used), resetsAt: windowOf(limit, now).resetsAt });
    }
  }
  return found;
}
