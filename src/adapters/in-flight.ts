// Work an adapter started after acknowledging an event (runs, clicks, expiries), so stop()
// can let it reach a safe point (answered, or paused with the approval already in the store)
// within a bound.
import type { Logger } from "../logger.js";

export interface InFlight {
  /** `what` names the work in the log line when it fails; a failure is logged, never thrown. */
  track(what: string, work: Promise<unknown>): void;
  readonly size: number;
  /** Resolves true when everything (also work tracked meanwhile) finished, false when the time ran out first. Never rejects. */
  drain(timeoutMs: number): Promise<boolean>;
}

/** True when `work` settles (either way) within `ms`, false when the time runs out first. Never rejects. */
export async function within(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  const settled = work.then(
    () => true as const,
    () => true as const,
  );
  const finished = await Promise.race([settled, timeout]);
  clearTimeout(timer);
  return finished;
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
