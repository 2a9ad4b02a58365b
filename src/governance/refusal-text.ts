// What a refused person is told: one short sentence, with when a limit resets. Pure.
import type { AccessRefusal } from "./access.js";
import type { LimitCheck } from "./limits.js";

export type Refusal = { readonly kind: "access"; readonly reason: AccessRefusal } | Extract<LimitCheck, { kind: "limited" }>;

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
