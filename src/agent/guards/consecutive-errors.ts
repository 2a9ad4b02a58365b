import type { CallOutcome, GuardStop } from "../../contracts/types.js";
import { guardStop } from "./guard-stop.js";

const FAILURES: ReadonlySet<CallOutcome | "empty_reply"> = new Set(["error", "invalid_args", "unknown_tool", "timeout", "empty_reply"]);

/** A success resets the streak; repeats, denials and pending approvals leave it as it is. */
export function nextErrorStreak(streak: number, outcome: CallOutcome | "empty_reply"): number {
  if (FAILURES.has(outcome)) return streak + 1;
  return outcome === "ok" ? 0 : streak;
}

export function checkErrorStreak(streak: number, max: number): GuardStop | undefined {
  if (streak < max) return undefined;
  // The streak counts failed tool calls and empty replies, several of which can come in one step.
  return guardStop("errors", `${streak} failures in a row`, `Stopped: ${streak} attempts in a row failed (tool calls or empty replies).`);
}
