// A step's model call failed for good: the stop the person reads, and one log line. An
// unavailable model is a state of the world, already said in the stop with its fix, so it is
// logged as a warning without a stack (the stack only at LOG_LEVEL=debug); anything else the
// model seam threw is a bug and keeps its stack.
import { ModelUnavailableError } from "../../errors.js";
import type { Logger } from "../../logger.js";
import { errorText, loggableError } from "./error-text.js";
import { modelUnavailableStop } from "../guards/external-stops.js";
import type { GuardStop } from "../../contracts/types.js";

export function modelCallStop(error: unknown, logger: Logger, where: { readonly runId: string; readonly step: number }): GuardStop {
  if (error instanceof ModelUnavailableError) {
    const { cause, status, retryable } = error.failure;
    const stack = logger.isLevelEnabled("debug") ? { err: error } : {};
    logger.warn({ ...where, cause, httpStatus: status, retryable, ...stack }, "the model is unavailable");
    return modelUnavailableStop(error.failure);
  }
  logger.error({ ...where, err: loggableError(error) }, "model call failed");
  return modelUnavailableStop({ cause: `the model call failed (${errorText(error)})`, fix: "", retryable: true });
}
