// The guarded agent loop. One step = one model call; tool calls go through the registry and
// the guards; when a guard trips the person still gets a summary. A write that needs a person
// pauses the run and hands back its whole state, to be resumed with the decision.
import type { Logger } from "pino";
import { ActiveRun, type StepEnd } from "./active-run.js";
import type { ToolPolicy } from "./call-batch.js";
import { emptyGuardCounters, type RunState } from "./run-state.js";
import type { TokenCounter } from "./token-counter.js";
import type { ToolRegistry } from "./tool-registry.js";
import type { ChatMessage, Decision, EventSink, Model, Person, RunOutcome, TaskOrigin } from "./types.js";

export interface LoopLimits {
  readonly maxSteps: number;
  readonly maxConsecutiveErrors: number;
  readonly oscillationWindow: number;
  /** The model's context window in tokens. */
  readonly contextWindow: number;
  readonly reservedOutputTokens: number;
  readonly runTimeoutMs: number;
}

export interface LoopDeps {
  readonly model: Model;
  readonly tools: ToolRegistry;
  readonly counter: TokenCounter;
  readonly limits: LoopLimits;
  readonly policy: ToolPolicy;
  readonly approvalTimeoutMs: number;
  readonly logger: Logger;
  /** Wall clock for expiry times; defaults to Date.now. */
  readonly clock?: () => number;
}

export interface RunStart {
  readonly runId: string;
  readonly origin: TaskOrigin;
  readonly question: string;
  /** System prompt and earlier turns; the loop appends the question. */
  readonly context: readonly ChatMessage[];
}

export type Resolution = { readonly kind: "decided"; readonly decision: Decision; readonly decidedBy: Person } | { readonly kind: "expired" };

export interface LoopResult {
  readonly outcome: RunOutcome;
  /** The state to store when the outcome is `paused`. */
  readonly state: RunState;
}

async function drive(run: ActiveRun, first?: () => Promise<StepEnd>): Promise<LoopResult> {
  let end = first ? await first() : await run.step();
  while (end.kind === "continue") end = await run.step();
  return run.finish(end);
}

const QUESTION_SHARE_OF_BUDGET = 0.5;

function boundedQuestion(question: string, deps: LoopDeps): string {
  const budget = deps.limits.contextWindow - deps.limits.reservedOutputTokens;
  const cap = Math.floor(budget * QUESTION_SHARE_OF_BUDGET);
  const { text, truncated } = deps.counter.truncate(question, cap);
  return truncated ? `${text}\n…[the message was cut here: it had ${question.length.toLocaleString("en-US")} characters, more than the model's context can hold]` : text;
}

/** Runs until an answer, a guard's summary, or a pause for approval. Never rejects for model or tool failures. */
export function runAgent(start: RunStart, deps: LoopDeps, sink: EventSink): Promise<LoopResult> {
  const messages: ChatMessage[] = [...start.context, { role: "user", content: boundedQuestion(start.question, deps) }];
  const run = new ActiveRun(
    { version: 1, runId: start.runId, origin: start.origin, question: start.question, messages, steps: [], guards: emptyGuardCounters, usage: { promptTokens: 0, completionTokens: 0 }, elapsedMs: 0 },
    deps,
    sink,
  );
  return drive(run);
}

/** Continues a paused run with the decision on its waiting call. The state must come from a `paused` result. */
export function resumeAgent(state: RunState, resolution: Resolution, deps: LoopDeps, sink: EventSink): Promise<LoopResult> {
  if (!state.pending) throw new Error(`run ${state.runId} is not waiting for a decision`);
  const run = new ActiveRun(state, deps, sink);
  return drive(run, () => run.resolve(resolution));
}
