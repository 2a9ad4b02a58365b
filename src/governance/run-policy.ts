// What the runner and the chat surfaces ask governance: may this run start (access, then limits),
// may this act be done now (a decision, a paused run going on, Stop, a vote, a command: acts.ts),
// with which channel settings, may the run go on after the tokens it just used, and where its
// events go for the audit log. One object over the settings in force and the store. It reads a
// request's place only through its neutral scope (see RequestScope): a thread is governed by its
// parent channel.
import type { Logger } from "../logger.js";
import { z } from "zod";
import type { EventSink, GuardStop, TaskOrigin } from "../contracts/types.js";
import type { KeyValueStore } from "../memory/types.js";
import { decideAccess, isAdmin, scopeOf, subjectOf } from "./access.js";
import { spends, type Act } from "./acts.js";
import { createAuditObserver, type AuditContext, type AuditObserver } from "./audit-events.js";
import type { AuditLog } from "./audit-log.js";
import { runSettingsFor, type RunSettings } from "./channel-settings.js";
import { admitRun, allowances, checkDailyTokens, recordTokens, type Allowance } from "./limits.js";
import { refusalStop, refusalText, type ActRefusal, type Refusal } from "./refusal-text.js";
import type { SettingsSource } from "./settings-source.js";
import { settingsIn } from "./workspace-settings.js";

export type Admission =
  | { readonly kind: "admitted" }
  /** `repeat`: this receipt (a second fire of one schedule slot) was refused before, and the owner was told then. */
  | { readonly kind: "refused"; readonly refusal: Refusal; readonly text: string; readonly repeat?: true };

/** `text`: what the person acting is told (privately); a run refused `go_on` ends with refusalStop(refusal) instead. */
export type ActCheck = { readonly kind: "allowed" } | { readonly kind: "refused"; readonly refusal: ActRefusal; readonly text: string };

/** An admission asked with a receipt is remembered this long, so a repeat is neither counted nor refused twice. */
const ADMISSION_MEMO_MS = 24 * 60 * 60_000;
const AdmissionMemo = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("admitted") }),
  z.object({
    kind: z.literal("refused"),
    refusal: z.custom<Refusal>((value) => typeof value === "object" && value !== null),
    text: z.string(),
  }),
]);

export interface RunPolicy {
  /**
   * May this act be done now (acts.ts): access, and for an act that lets a run go on the daily token limits; counts
   * nothing. The limits fail open (logged) when the store fails, as `admit`'s do. Never rejects.
   */
  check(act: Act): Promise<ActCheck>;
  /**
   * Access, then limits (a run): an admitted run counts against the per-minute limits. Fails open
   * (logged) when the store fails. With `receipt` the answer is remembered and given again,
   * uncounted: a schedule's slot is admitted before its intake record dedupes it, so a second fire
   * of the slot must not count twice (a message is admitted by its worker, after the dedupe).
   */
  admit(origin: TaskOrigin, receipt?: string): Promise<Admission>;
  /** The settings of the run's channel, as they are now: the thread's own entry, then its parent's, then `default`. */
  runSettings(origin: TaskOrigin): RunSettings;
  /** Adds tokens a run used; a stop when a daily limit is now reached. Never throws. */
  recordUsage(origin: TaskOrigin, tokens: number): Promise<GuardStop | undefined>;
  /** Taps a run's events for the audit log. Never throws. */
  auditSink(context: AuditContext): EventSink;
  /** Limits left for the asker here; empty when none apply. */
  allowances(origin: TaskOrigin): Promise<readonly Allowance[]>;
  /** True when the asker is exempt from limits and lists (an admin of that surface). */
  exempt(origin: TaskOrigin): boolean;
  readonly audit: AuditLog;
  readonly observer: AuditObserver;
}

export interface RunPolicyDeps {
  readonly settings: SettingsSource;
  readonly store: KeyValueStore;
  readonly audit: AuditLog;
  readonly logger: Logger;
  readonly clock?: () => number;
}

export function createRunPolicy(deps: RunPolicyDeps): RunPolicy {
  const { settings, store, logger } = deps;
  const clock = deps.clock ?? Date.now;
  const observer = createAuditObserver(deps.audit, logger);
  /** The settings in force where the request is: its workspace's section over the global one. */
  const settingsAt = (origin: TaskOrigin) => settingsIn(settings.current(), scopeOf(origin).workspace);
  const adminHere = (origin: TaskOrigin) =>
    isAdmin(settingsAt(origin), origin.surface, origin.requester.id, scopeOf(origin).workspaceAdmin === true);

  /** The access refusal for this person here, if the settings in force refuse them. */
  function accessRefusal(origin: TaskOrigin): Extract<Refusal, { kind: "access" }> | undefined {
    const decision = decideAccess(settingsAt(origin), subjectOf(origin));
    return decision.kind === "refused" ? { kind: "access", reason: decision.reason } : undefined;
  }

  async function check(act: Act): Promise<ActCheck> {
    const denied = accessRefusal(act.origin);
    if (denied) return { kind: "refused", refusal: denied, text: refusalText(denied, clock()) };
    if (!spends(act.kind)) return { kind: "allowed" };
    const now = clock();
    try {
      const spent = await checkDailyTokens(store, settingsAt(act.origin), subjectOf(act.origin), adminHere(act.origin), now);
      if (spent.kind === "limited") return { kind: "refused", refusal: spent, text: refusalText(spent, now) };
    } catch (error) {
      logger.warn(
        { err: error, conversationKey: act.origin.conversationKey },
        "could not check the limits (store failed); letting it go on",
      );
    }
    return { kind: "allowed" };
  }

  async function decide(origin: TaskOrigin): Promise<Admission> {
    const denied = accessRefusal(origin);
    if (denied) return { kind: "refused", refusal: denied, text: refusalText(denied, clock()) };
    const now = clock();
    try {
      const limit = await admitRun(store, settingsAt(origin), subjectOf(origin), adminHere(origin), now);
      if (limit.kind === "limited") return { kind: "refused", refusal: limit, text: refusalText(limit, now) };
    } catch (error) {
      logger.warn(
        { err: error, conversationKey: origin.conversationKey },
        "could not check the limits (store failed); letting the request run",
      );
    }
    return { kind: "admitted" };
  }

  return {
    check,

    async admit(origin, receipt) {
      if (receipt === undefined) return decide(origin);
      const key = `admission:${origin.surface}:${receipt}`;
      try {
        const memo = AdmissionMemo.safeParse(await store.get(key));
        if (memo.success) return memo.data.kind === "admitted" ? memo.data : { ...memo.data, repeat: true };
      } catch (error) {
        logger.warn({ err: error, receipt }, "could not read an earlier admission (store failed)");
      }
      const admission = await decide(origin);
      await store
        .set(key, admission, ADMISSION_MEMO_MS)
        .catch((error: unknown) => logger.warn({ err: error, receipt }, "could not remember an admission (store failed)"));
      return admission;
    },

    runSettings: (origin) => {
      const scope = scopeOf(origin);
      return runSettingsFor(settingsAt(origin), { channel: scope.channel, thread: scope.thread });
    },

    async recordUsage(origin, tokens) {
      const now = clock();
      try {
        const recorded = await recordTokens(store, settingsAt(origin), subjectOf(origin), adminHere(origin), tokens, now);
        return recorded.kind === "ok" ? undefined : refusalStop(recorded, now);
      } catch (error) {
        logger.warn({ err: error, conversationKey: origin.conversationKey }, "could not record the tokens a run used (store failed)");
        return undefined;
      }
    },

    auditSink: (context) => observer.sinkFor(context),
    allowances: (origin) => allowances(store, settingsAt(origin), subjectOf(origin), adminHere(origin), clock()),
    exempt: adminHere,
    audit: deps.audit,
    observer,
  };
}
