import type { GuardStop } from "../../contracts/types.js";
import { durationPhrase, guardStop } from "./guard-stop.js";

export function deadlineStop(runTimeoutMs: number): GuardStop {
  return guardStop(
    "deadline",
    `the run passed its ${runTimeoutMs} ms deadline`,
    `Stopped: the run took longer than its time limit of ${durationPhrase(runTimeoutMs)}.`,
  );
}
