// Stops that come from outside the model's behaviour: an unreachable model, a person who never
// decided, a person who pressed Stop.
import type { GuardStop, Person } from "../types.js";
import { durationPhrase, guardStop } from "./guard-stop.js";

export function modelUnavailableStop(reason: string): GuardStop {
  return guardStop("model_unavailable", reason, `Stopped: the model could not be reached (${reason}).`);
}

export function stoppedByStop(by: Person): GuardStop {
  return guardStop("stopped", `stopped by ${by.id}`, `Stopped by ${by.name ?? by.id}.`);
}

/** The stop a Stop request carries as its abort reason; anything else is read as a stop by someone unnamed. */
export function stopOf(reason: unknown): GuardStop {
  const stop = reason as Partial<GuardStop> | undefined;
  return stop?.guard === "stopped" && typeof stop.sentence === "string" && typeof stop.detail === "string"
    ? (stop as GuardStop)
    : stoppedByStop({ id: "someone" });
}

export function approvalExpiredStop(tool: string, timeoutMs: number): GuardStop {
  return guardStop(
    "approval_expired",
    `approval for ${tool} expired after ${timeoutMs} ms`,
    `Stopped: nobody approved ${tool} within ${durationPhrase(timeoutMs)}, so it did not run.`,
  );
}
