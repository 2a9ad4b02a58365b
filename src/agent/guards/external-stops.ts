// Stops that come from outside the model's behaviour: an unreachable model, a person who never decided.
import type { GuardStop } from "../types.js";
import { guardStop } from "./guard-stop.js";

export function modelUnavailableStop(reason: string): GuardStop {
  return guardStop("model_unavailable", reason, `Stopped: the model could not be reached (${reason}).`);
}

export function approvalExpiredStop(tool: string, timeoutMs: number): GuardStop {
  const minutes = Math.round(timeoutMs / 60_000);
  return guardStop("approval_expired", `approval for ${tool} expired after ${timeoutMs} ms`, `Stopped: nobody approved ${tool} within ${minutes} minute${minutes === 1 ? "" : "s"}, so it did not run.`);
}
