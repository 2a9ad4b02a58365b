// A platform call whose failure nobody handles but the log: the caller only learns whether it
// went through (a post with another way to go, an edit, a clean-up).
import type { Logger } from "../../logger.js";

/** How such a failure is logged. */
export interface Failure {
  readonly level: "info" | "warn" | "error";
  readonly message: string;
  readonly fields?: Readonly<Record<string, unknown>>;
}

/** Whether `work` went through; a failure is logged as `failure` says. Never throws. */
export async function attempt(logger: Logger, failure: Failure, work: () => Promise<unknown>): Promise<boolean> {
  try {
    await work();
    return true;
  } catch (error) {
    logger[failure.level]({ err: error, ...failure.fields }, failure.message);
    return false;
  }
}
