// Watchers of every run this process drives (metrics, traces): they see each run start, every
// event it emits, and a run that failed without a final event. They only watch: an observer
// that throws is logged and ignored, and never changes what the run or the person sees.
import type { Logger } from "../../logger.js";
import type { LoopDeps } from "../../agent/loop/loop-types.js";
import type { AgentEvent, EventSink, TaskOrigin, TokenUsage } from "../../contracts/types.js";

/** new: a fresh message; resumed: after a decision; expired: ended because nobody decided in time. */
export type RunStart = "new" | "resumed" | "expired";

/** How a run starts: its question and the loop setup it runs with (model, limits, tools, policy). */
export interface RunSetup {
  readonly question: string;
  readonly deps: LoopDeps;
}

/** A model call outside the run's loop that still belongs to it: fact extraction after the answer. */
export interface ExtraUsage {
  readonly kind: "facts";
  readonly model: string;
  readonly usage: TokenUsage;
}

export interface RunObserver {
  runStarted?(runId: string, origin: TaskOrigin, how: RunStart, setup?: RunSetup): void;
  /** Every event of the run, in order, before the surface's own sink sees it. */
  event(event: AgentEvent, origin: TaskOrigin): void;
  /** The run rejected: no `final` event will come for it. */
  runFailed?(runId: string, origin: TaskOrigin, error: unknown): void;
  /** A model call the run caused after it ended (its final event came before). */
  extraUsage?(runId: string, origin: TaskOrigin, usage: ExtraUsage): void;
}

export interface ObservedRun {
  readonly runId: string;
  readonly origin: TaskOrigin;
  readonly how: RunStart;
  readonly setup?: RunSetup;
}

/**
 * Drives `work` with a sink that shows every event to the observers first. With no observers
 * it is exactly `work(sink)`.
 */
export async function observeRun<T>(
  observers: readonly RunObserver[],
  logger: Logger,
  run: ObservedRun,
  sink: EventSink,
  work: (sink: EventSink) => Promise<T>,
): Promise<T> {
  if (observers.length === 0) return work(sink);
  const { runId, origin, how } = run;
  const each = (what: string, call: (observer: RunObserver) => void): void => tellEach(observers, logger, runId, what, call);
  each("start", (observer) => observer.runStarted?.(runId, origin, how, run.setup));
  const observed: EventSink = (event) => {
    each(event.type, (observer) => observer.event(event, origin));
    sink(event);
  };
  try {
    return await work(observed);
  } catch (error) {
    each("failure", (observer) => observer.runFailed?.(runId, origin, error));
    throw error;
  }
}

/** Tells the observers of model usage a run caused after it ended. */
export function observeExtraUsage(
  observers: readonly RunObserver[],
  logger: Logger,
  runId: string,
  origin: TaskOrigin,
  usage: ExtraUsage,
): void {
  tellEach(observers, logger, runId, usage.kind, (observer) => observer.extraUsage?.(runId, origin, usage));
}

function tellEach(
  observers: readonly RunObserver[],
  logger: Logger,
  runId: string,
  what: string,
  call: (observer: RunObserver) => void,
): void {
  for (const observer of observers) {
    try {
      call(observer);
    } catch (error) {
      logger.warn({ err: error, runId }, `a run observer threw on ${what}; ignored`);
    }
  }
}
