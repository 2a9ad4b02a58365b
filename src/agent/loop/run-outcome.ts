// What a run's end shows the person: the answer, the approval request, or a guard's summary in
// place of the answer, with the files its tools attached on the way (a summary carries them too).
import { answerFilesOf } from "../tools/tool-output.js";
import type { GuardStop, PendingApproval, RunOutcome, StepRecord, TokenUsage } from "../../contracts/types.js";
import type { StepEnd } from "./loop-types.js";

export interface RunSoFar {
  readonly runId: string;
  readonly steps: readonly StepRecord[];
  /** The steps with the one waiting for approval, for a paused run. */
  readonly visibleSteps: () => StepRecord[];
  readonly usage: TokenUsage;
}

/** `summary` is the guard's summary when `end` is a stop. Pure. */
export function outcomeOf(end: Exclude<StepEnd, { kind: "continue" }>, run: RunSoFar, summary?: string): RunOutcome {
  const { runId, usage } = run;
  if (end.kind === "pause") return pausedOutcome(runId, end.approval, run.visibleSteps(), usage);
  const steps = [...run.steps];
  const files = answerFilesOf(steps.flatMap((step) => step.calls));
  const withFiles = files.length > 0 ? { files } : {};
  if (end.kind === "answer") return { status: "answered", runId, answer: end.answer, steps, usage, ...withFiles };
  const stop: GuardStop = end.stop;
  return { status: "answered", runId, answer: summary ?? stop.sentence, stop, steps, usage, ...withFiles };
}

const pausedOutcome = (runId: string, pending: PendingApproval, steps: StepRecord[], usage: TokenUsage): RunOutcome => ({
  status: "paused",
  runId,
  pending,
  steps,
  usage,
});
