// Work an adapter started after acknowledging an event (runs, clicks, expiries), so stop()
// can let it reach a safe point (answered, or paused with the approval already in the store)
// within a bound.
import type { Logger } from "../../logger.js";
import { within } from "../../runs/within.js";

export interface InFlight {
  /** `what` names the work in the log line when it fails; a failure is logged, never thrown. */
  track(what: string, work: Promise<unknown>): void;
  readonly size: number;
  /** Resolves true when everything (also work tracked meanwhile) finished, false when the time ran out first. Never rejects. */
  drain(timeoutMs: number): Promise<boolean>;
}

export function createInFlight(logger: Logger): InFlight {
  const work = new Set<Promise<void>>();
  return {
    track(what, promise) {
      const tracked: Promise<void> = promise
        .then(
          () => undefined,
          (error: unknown) => logger.error({ err: error }, `${what} failed unexpectedly`),
        )
        .finally(() => work.delete(tracked));
      work.add(tracked);
    },
    get size() {
      return work.size;
    },
    drain(timeoutMs) {
      const everything = (async () => {
        while (work.size > 0) await Promise.all(work);
      })();
      return within(everything, timeoutMs);
    },
  };
}
