// What a refused person is told: one short sentence, with when a limit resets; and how a run that
// may no longer go on ends (the line under its summary). Pure.
import type { GuardStop } from "../contracts/types.js";
import type { AccessRefusal } from "./access.js";
import type { LimitCheck, TokensSpent } from "./limits.js";

export type Refusal = { readonly kind: "access"; readonly reason: AccessRefusal } | Extract<LimitCheck, { kind: "limited" }>;

/** A refusal of something that starts no run (acts.ts): access, or a daily token limit; the per-minute limit counts only runs. */
export type ActRefusal = Extract<Refusal, { kind: "access" }> | TokensSpent;

/** "in 42 s", "at 00:00 UTC": short, and true for everyone whatever their time zone. */
export function resetText(resetsAt: number, now: number): string {
  const seconds = Math.max(1, Math.ceil((resetsAt - now) / 1000));
  if (seconds < 120) return `in ${seconds} s`;
  const at = new Date(resetsAt);
  return `at ${String(at.getUTCHours()).padStart(2, "0")}:${String(at.getUTCMinutes()).padStart(2, "0")} UTC`;
}

export function refusalText(refusal: Refusal, now: number): string {
  if (refusal.kind === "access") {
    switch (refusal.reason) {
      case "blocked_user":
      case "user_not_allowed":
        return "Sorry, you are not allowed to use this bot. Ask one of its admins if you need access.";
      case "blocked_channel":
      case "channel_not_allowed":
        return "Sorry, I don't answer in this channel. Ask one of my admins where you can use me.";
      case "dms_off":
        return "Sorry, I don't answer direct messages here. Ask me in a channel instead.";
    }
  }
  const who = refusal.scope === "user" ? "your" : "this channel's";
  const what =
    refusal.limit === "runs"
      ? `limit of ${refusal.max} requests a minute`
      : `daily limit of ${refusal.max.toLocaleString("en-US")} model tokens`;
  return `Sorry, ${who} ${what} is reached. It resets ${resetText(refusal.resetsAt, now)}.`;
}

/** Why an act is refused, in a few words, for the audit log. */
export function refusalDetail(refusal: ActRefusal): string {
  if (refusal.kind === "access") return `no access here (${refusal.reason})`;
  return `${refusal.scope === "user" ? "the person's" : "the channel's"} daily limit of ${refusal.max} model tokens is reached`;
}

/** The stop that ends a run its requester's or its channel's standing no longer lets go on; its sentence is addressed to the requester. */
export function refusalStop(refusal: ActRefusal, now: number): GuardStop {
  if (refusal.kind === "limited") {
    return {
      guard: "token_limit",
      detail: refusalDetail(refusal),
      sentence: `Stopped: ${refusal.scope === "user" ? "your" : "the channel's"} daily limit of ${refusal.max.toLocaleString("en-US")} model tokens is reached; it resets ${resetText(refusal.resetsAt, now)}.`,
    };
  }
  switch (refusal.reason) {
    case "blocked_user":
    case "user_not_allowed":
      return {
        guard: "access_lost",
        detail: `the requester no longer has access here (${refusal.reason})`,
        sentence: "Stopped: you no longer have access here.",
      };
    case "blocked_channel":
    case "channel_not_allowed":
      return {
        guard: "access_lost",
        detail: `this channel no longer has access (${refusal.reason})`,
        sentence: "Stopped: I no longer answer in this channel.",
      };
    case "dms_off":
      return {
        guard: "access_lost",
        detail: "direct messages are turned off (dms_off)",
        sentence: "Stopped: I no longer answer direct messages here.",
      };
  }
}
