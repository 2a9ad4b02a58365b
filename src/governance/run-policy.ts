// What the runner and the chat commands ask governance: may this person use the bot here
// (access), may this run start (access, then limits), with which channel settings, may the run
// go on after the tokens it just used, and where its events go for the audit log. One object
// over the settings in force and the store. It reads a request's place only through its
// neutral scope (see RequestScope): a thread is governed by its parent channel.
import type { Logger } from "pino";
import type { EventSink, GuardStop, TaskOrigin } from "../agent/types.js";
import type { KeyValueStore } from "../memory/types.js";
import { decideAccess, isAdmin, scopeOf, subjectOf } from "./access.js";
import { createAuditObserver, type AuditContext, type AuditObserver } from "./audit-events.js";
import type { AuditLog } from "./audit-log.js";
import { runSettingsFor, type RunSettings } from "./channel-settings.js";
import { admitRun, allowances, recordTokens, type Allowance } from "./limits.js";
import { refusalText, resetText, type Refusal } from "./refusal-text.js";
import type { SettingsSource } from "./settings-source.js";

export type Admission = { readonly kind: "admitted" } | { readonly kind: "refused"; readonly refusal: Refusal; readonly text: string };

export interface RunPolicy {
  /** Access only (a command): nothing is counted. */
  access(origin: TaskOrigin): Admission;
  /** Access, then limits (a run): an admitted run counts against the per-minute limits. Fails open (logged) when the store fails. */
  admit(origin: TaskOrigin): Promise<Admission>;
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
  const adminHere = (origin: TaskOrigin) => isAdmin(settings.current(), origin.surface, origin.requester.id);

  function access(origin: TaskOrigin): Admission {
    const decision = decideAccess(settings.current(), subjectOf(origin));
    if (decision.kind === "allowed") return { kind: "admitted" };
    const refusal: Refusal = { kind: "access", reason: decision.reason };
    return { kind: "refused", refusal, text: refusalText(refusal, clock()) };
  }

  return {
    access,

    async admit(origin) {
      const allowed = access(origin);
      if (allowed.kind === "refused") return allowed;
      const now = clock();
      try {
        const limit = await admitRun(store, settings.current(), subjectOf(origin), adminHere(origin), now);
        if (limit.kind === "limited") return { kind: "refused", refusal: limit, text: refusalText(limit, now) };
      } catch (error) {
        logger.warn(
          { err: error, conversationKey: origin.conversationKey },
          "could not check the limits (store failed); letting the request run",
        );
      }
      return { kind: "admitted" };
    },

    runSettings: (origin) => {
      const scope = scopeOf(origin);
      return runSettingsFor(settings.current(), { channel: scope.channel, thread: scope.thread });
    },

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
    allowances: (origin) => allowances(store, settings.current(), subjectOf(origin), adminHere(origin), clock()),
    exempt: adminHere,
    audit: deps.audit,
    observer,
  };
}
