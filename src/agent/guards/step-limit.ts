import type { GuardStop } from "../../contracts/types.js";
import { guardStop } from "./guard-stop.js";

/** Checked before each model call: a run makes at most `maxSteps` of them. */
export function checkStepLimit(stepsTaken: number, maxSteps: number): GuardStop | undefined {
  if (stepsTaken < maxSteps) return undefined;
  return guardStop(
    "steps",
    `${stepsTaken} model calls reached the cap of ${maxSteps}`,
    `Stopped: the step limit of ${maxSteps} model calls was reached.`,
  );
}
