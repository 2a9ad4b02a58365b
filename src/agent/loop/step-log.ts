// The info line each finished step writes: built only when it is written, since a busy process
// takes thousands of steps a second.
import type { Logger } from "../../logger.js";
import type { CallRecord } from "../../contracts/types.js";

export function logStep(
  logger: Logger,
  runId: string,
  step: number,
  calls: readonly CallRecord[],
  durationMs: number,
  tokens: number,
): void {
  if (!logger.isLevelEnabled("info")) return;
  logger.info(
    {
      runId,
      step,
      tools: calls.map((call) => call.tool),
      args: calls.map((call) => call.signature.split("#")[1]),
      durationMs: Math.round(durationMs * 100) / 100,
      tokens,
      outcome: calls.length === 0 ? "answer" : calls.map((call) => call.outcome),
    },
    "step",
  );
}
