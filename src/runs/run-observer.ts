// Watchers of every run this process drives (metrics, traces): they see each run start, every
// event it emits, and a run that failed without a final event. They only watch: an observer
// that throws is logged and ignored, and never changes what the run or the person sees.
import type { Logger } from "pino";
import type { AgentEvent, EventSink, TaskOrigin } from "../agent/types.js";

/** new: a fresh message; resumed: after a decision; expired: ended because nobody decided in time. */
export type RunStart = "new" | "resumed" | "expired";

export interface RunObserver {
  runStarted?(runId: string, origin: TaskOrigin, how: RunStart): void;
  /** Every event of the run, in order, before the surface's own sink sees it. */
  event(event: AgentEvent, origin: TaskOrigin): void;
  /** The run rejected: no `final` event will come for it. */
  runFailed?(runId: string, origin: TaskOrigin, error: unknown): void;
}

export interface ObservedRun {
  readonly runId: string;
  readonly origin: TaskOrigin;
  readonly how: RunStart;
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
  const each = (what: string, call: (observer: RunObserver) => void): void => {
    for (const observer of observers) {
      try {
        call(observer);
      } catch (error) {
        logger.warn({ err: error, runId }, `a run observer threw on ${what}; ignored`);
      }
    }
  };
  each("start", (observer) => observer.runStarted?.(runId, origin, how));
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
