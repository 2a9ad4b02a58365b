// The guarded agent loop. One step = one model call; tool calls go through the registry and
// the guards; when a guard trips the person still gets a summary. A write that needs a person
// pauses the run and hands back its whole state, to be resumed with the decision.
import type { Logger } from "pino";
import { ActiveRun, type StepEnd } from "./active-run.js";
import type { ToolPolicy } from "./call-batch.js";
import { emptyGuardCounters, type RunState } from "./run-state.js";
import type { TokenCounter } from "../tokens/token-counter.js";
import type { ToolRegistry } from "./tool-registry.js";
import type { ChatMessage, Decision, EventSink, GuardStop, Model, Person, RunOutcome, TaskOrigin } from "./types.js";

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
  /**
   * Told the model tokens used since its last call (reported by the server, else counted) before
   * each step and once at the end; a stop it returns ends the run with the summary. Must not throw.
   */
  readonly usageCheck?: (run: { readonly runId: string; readonly origin: TaskOrigin }, tokens: number) => Promise<GuardStop | undefined>;
}

export interface RunStart {
  readonly runId: string;
  readonly origin: TaskOrigin;
  readonly question: string;
  /** System prompt and earlier turns; the loop appends the question. */
  readonly context: readonly ChatMessage[];
}

export type Resolution =
  | { readonly kind: "decided"; readonly decision: Decision; readonly decidedBy: Person }
  | { readonly kind: "expired" };

export interface LoopResult {
  readonly outcome: RunOutcome;
  /** The state to store when the outcome is `paused`. */
  readonly state: RunState;
}

/** How the runner keeps a run durable; the loop knows nothing of where the state goes. */
export interface RunHooks {
  /** Called with the state before a new run's first step and after every completed step; the run waits for it (it should not throw). */
  readonly checkpoint?: (state: RunState) => Promise<void>;
  /** Checked after each checkpoint: once aborted the run stops there (RunInterruptedError), to be continued from that checkpoint. */
  readonly signal?: { readonly aborted: boolean };
  /** A person's Stop: aborts the model call or reads in flight (a write finishes) and ends the run with its summary; the reason is the GuardStop. */
  readonly stop?: StopSignal;
}

/** What the loop reads of a Stop: an AbortSignal is one, and so is the lighter flag the runner gives each run (src/runs/run-stops.ts). */
export interface StopSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: "abort", listener: StopListener, options?: { once?: boolean }): void;
  removeEventListener(type: "abort", listener: StopListener): void;
}

export type StopListener = { handleEvent(): void } | (() => void);

/** The run stopped at a checkpoint because its process is shutting down; it is not finished. */
export class RunInterruptedError extends Error {
  constructor(readonly runId: string) {
    super(`run ${runId} stopped at its checkpoint`);
    this.name = "RunInterruptedError";
  }
}

async function drive(run: ActiveRun, hooks: RunHooks | undefined, first?: () => Promise<StepEnd>): Promise<LoopResult> {
  let end = first ? await first() : await run.step();
  while (end.kind === "continue") {
    await hooks?.checkpoint?.(run.snapshot());
    if (hooks?.signal?.aborted) {
      // The step's tokens count now: the run that takes it up goes on from after this step.
      await run.reportUsage();
      throw new RunInterruptedError(run.runId);
    }
    end = await run.step();
  }
  return run.finish(end);
}

const QUESTION_SHARE_OF_BUDGET = 0.5;

/** A question of any length is cut without holding the event loop (other conversations go on meanwhile). */
async function boundedQuestion(question: string, deps: LoopDeps): Promise<string> {
  const budget = deps.limits.contextWindow - deps.limits.reservedOutputTokens;
  const cap = Math.floor(budget * QUESTION_SHARE_OF_BUDGET);
  const { text, truncated } = await deps.counter.truncateYielding(question, cap);
  return truncated
    ? `${text}\n…[the message was cut here: it had ${question.length.toLocaleString("en-US")} characters, more than the model's context can hold]`
    : text;
}

/** Runs until an answer, a guard's summary, or a pause for approval. Never rejects for model or tool failures. */
export async function runAgent(start: RunStart, deps: LoopDeps, sink: EventSink, hooks?: RunHooks): Promise<LoopResult> {
  const messages: ChatMessage[] = [...start.context, { role: "user", content: await boundedQuestion(start.question, deps) }];
  // Counted here, a slice at a time, so that the run's own counts of them are free.
  await deps.counter.countMessagesYielding(messages);
  const run = new ActiveRun(
    {
      version: 1,
      runId: start.runId,
      origin: start.origin,
      question: start.question,
      messages,
      steps: [],
      guards: emptyGuardCounters,
      usage: { promptTokens: 0, completionTokens: 0 },
      elapsedMs: 0,
    },
    deps,
    sink,
    hooks?.stop,
  );
  // The start is saved too: a crash during the first step continues from here, where a write that step began shows as unfinished.
  await hooks?.checkpoint?.(run.snapshot());
  return drive(run, hooks);
}

/** Continues a paused run with the decision on its waiting call. The state must come from a `paused` result. */
export function resumeAgent(
  state: RunState,
  resolution: Resolution,
  deps: LoopDeps,
  sink: EventSink,
  hooks?: RunHooks,
): Promise<LoopResult> {
  if (!state.pending) throw new Error(`run ${state.runId} is not waiting for a decision`);
  const run = new ActiveRun(state, deps, sink, hooks?.stop);
  return drive(run, hooks, () => run.resolve(resolution));
}

/** Continues a run from a checkpoint (a state between steps): the steps in it are not asked for again. */
export function continueAgent(state: RunState, deps: LoopDeps, sink: EventSink, hooks?: RunHooks): Promise<LoopResult> {
  if (state.pending) throw new Error(`run ${state.runId} waits for a decision; resume it with the decision`);
  return drive(new ActiveRun(state, deps, sink, hooks?.stop), hooks);
}
