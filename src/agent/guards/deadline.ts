import type { GuardStop } from "../types.js";
import { guardStop } from "./guard-stop.js";

export function deadlineStop(runTimeoutMs: number): GuardStop {
  const seconds = Math.round(runTimeoutMs / 1000);
  return guardStop("deadline", `the run passed its ${runTimeoutMs} ms deadline`, `Stopped: the run took longer than its ${seconds}-second time limit.`);
}
