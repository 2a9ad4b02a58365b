// What the runner asks governance: may this request run (access, then limits), with which
// channel settings, may the run go on after the tokens it just used, and where its events
// go for the audit log. One object over the settings in force and the store.
import type { Logger } from "pino";
import { z } from "zod";
import type { EventSink, GuardStop, Surface, TaskOrigin } from "../agent/types.js";
import type { KeyValueStore } from "../memory/types.js";
import { decideAccess, isAdmin, subjectOf } from "./access.js";
import { createAuditObserver, type AuditContext, type AuditObserver } from "./audit-events.js";
import type { AuditLog } from "./audit-log.js";
import { runSettingsFor, type RunSettings } from "./channel-settings.js";
import { admitRun, allowances, recordTokens, type Allowance } from "./limits.js";
import { refusalText, resetText, type Refusal } from "./refusal-text.js";
import type { SettingsSource } from "./settings-source.js";

export type Admission =
  | { readonly kind: "admitted" }
  /** `repeat`: this message (a redelivery) was refused before, and the person was told then. */
  | { readonly kind: "refused"; readonly refusal: Refusal; readonly text: string; readonly repeat?: true };

/** A message's admission is remembered this long, so a redelivery is neither counted nor refused twice. */
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
   * Access, then limits; an admitted request counts against the per-minute limits. With `receipt`
   * (the message's platform id) the answer is remembered: a redelivery gets it again, uncounted.
   * Fails open (logged) when the store fails.
   */
  admit(origin: TaskOrigin, roles?: readonly string[], receipt?: string): Promise<Admission>;
  /** The settings of the run's channel, as they are now. */
  runSettings(origin: TaskOrigin): RunSettings;
  /** Adds tokens a run used; a stop when a daily limit is now reached. Never throws. */
  recordUsage(origin: TaskOrigin, tokens: number): Promise<GuardStop | undefined>;
  /** Taps a run's events for the audit log. Never throws. */
  auditSink(context: AuditContext): EventSink;
  isAdmin(surface: Surface, userId: string): boolean;
  /** Limits left for the asker here; empty when none apply. */
  allowances(origin: TaskOrigin, roles?: readonly string[]): Promise<readonly Allowance[]>;
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
  const adminHere = (origin: TaskOrigin) => isAdmin(settings.current(), origin.surface, origin.requester.id);

  async function decide(origin: TaskOrigin, roles: readonly string[]): Promise<Admission> {
    const current = settings.current();
    const access = decideAccess(current, subjectOf(origin, roles));
    if (access.kind === "refused") {
      const refusal: Refusal = { kind: "access", reason: access.reason };
      return { kind: "refused", refusal, text: refusalText(refusal, clock()) };
    }
    const now = clock();
    try {
      const limit = await admitRun(store, current, subjectOf(origin, roles), access.admin, now);
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
    async admit(origin, roles = [], receipt) {
      if (receipt === undefined) return decide(origin, roles);
      const key = `admission:${origin.surface}:${receipt}`;
      try {
        const memo = AdmissionMemo.safeParse(await store.get(key));
        if (memo.success) return memo.data.kind === "admitted" ? memo.data : { ...memo.data, repeat: true };
      } catch (error) {
        logger.warn({ err: error, receipt }, "could not read a message's earlier admission (store failed)");
      }
      const admission = await decide(origin, roles);
      await store
        .set(key, admission, ADMISSION_MEMO_MS)
        .catch((error: unknown) => logger.warn({ err: error, receipt }, "could not remember a message's admission (store failed)"));
      return admission;
    },

    runSettings: (origin) => runSettingsFor(settings.current(), origin.place.channel),

    async recordUsage(origin, tokens) {
      const now = clock();
      try {
        const check = await recordTokens(store, settings.current(), subjectOf(origin), adminHere(origin), tokens, now);
        if (check.kind === "ok") return undefined;
        const whose = check.scope === "user" ? "the person's" : "the channel's";
        return {
          guard: "token_limit",
          detail: `${whose} daily limit of ${check.max} model tokens is reached`,
          sentence: `Stopped: ${whose.replace("the person's", "your")} daily limit of ${check.max.toLocaleString("en-US")} model tokens is reached; it resets ${resetText(check.resetsAt, now)}.`,
        };
      } catch (error) {
        logger.warn({ err: error, conversationKey: origin.conversationKey }, "could not record the tokens a run used (store failed)");
        return undefined;
      }
    },

    auditSink: (context) => observer.sinkFor(context),
    isAdmin: (surface, userId) => isAdmin(settings.current(), surface, userId),
    allowances: (origin, roles = []) => allowances(store, settings.current(), subjectOf(origin, roles), adminHere(origin), clock()),
    audit: deps.audit,
    observer,
  };
}
