// Stops that come from outside the model's behaviour: an unreachable model, a person who never
// decided, a person who pressed Stop.
import type { ModelFailure } from "../../errors.js";
import type { GuardStop, Person } from "../../contracts/types.js";
import { durationPhrase, guardStop } from "./guard-stop.js";

/** What failed and what to change; "try again" only when trying again can help. */
export function modelUnavailableStop(failure: ModelFailure): GuardStop {
  const fix = failure.fix === "" ? "" : failure.fix.charAt(0).toUpperCase() + failure.fix.slice(1);
  const advice =
    fix === ""
      ? failure.retryable
        ? " Try again in a moment."
        : ""
      : failure.retryable
        ? ` ${fix}, then try again.`
        : ` ${fix}; trying again will not help until then.`;
  const detail = failure.fix === "" ? failure.cause : `${failure.cause}: ${failure.fix}`;
  return guardStop("model_unavailable", detail, `Stopped: ${failure.cause}.${advice}`);
}

export function stoppedByStop(by: Person): GuardStop {
  return guardStop("stopped", `stopped by ${by.id}`, `Stopped by ${by.name ?? by.id}.`);
}

/** The person deleted the question while its run worked: nothing more is said to anyone. */
export function questionDeletedStop(): GuardStop {
  return guardStop("question_deleted", "the question was deleted", "Stopped: the question was deleted.");
}

/** The stop a Stop request (or a deleted question) carries as its abort reason; anything else is read as a stop by someone unnamed. */
export function stopOf(reason: unknown): GuardStop {
  const stop = reason as Partial<GuardStop> | undefined;
  return (stop?.guard === "stopped" || stop?.guard === "question_deleted") &&
    typeof stop.sentence === "string" &&
    typeof stop.detail === "string"
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

/** How long a run waits for the person to connect a server: as long as a Connect link lasts. */
export const CONNECT_WAIT_MS = 10 * 60_000;

/** The stop of a pause nobody resolved in time: an approval, or (`connect`: its server) a connection. */
export function pauseExpiredStop(tool: string, connect: string | undefined, approvalTimeoutMs: number): GuardStop {
  return connect ? connectionExpiredStop(tool, connect, CONNECT_WAIT_MS) : approvalExpiredStop(tool, approvalTimeoutMs);
}

/** A run that waited for the person to connect an MCP server: it ends like an approval nobody gave. */
export function connectionExpiredStop(tool: string, server: string, timeoutMs: number): GuardStop {
  return guardStop(
    "approval_expired",
    `the connection to ${server} for ${tool} was not made within ${timeoutMs} ms`,
    `Stopped: ${server} was not connected within ${durationPhrase(timeoutMs)}, so ${tool} did not run.`,
  );
}
