// Work started after an ack (runs, clicks, expiries), so stop() can wait for it to reach a
// safe point: answered, or paused with the approval already in the store.
import type { Logger } from "../../logger.js";

export interface InFlight {
  track(work: Promise<void>): void;
  readonly size: number;
  /** Resolves true when everything finished, false when the time ran out first. */
  drain(timeoutMs: number): Promise<boolean>;
}

export function createInFlight(logger: Logger): InFlight {
  const work = new Set<Promise<void>>();
  return {
    track(promise) {
      const tracked = promise
        .catch((error: unknown) => logger.error({ err: error }, "Slack work failed unexpectedly"))
        .finally(() => work.delete(tracked));
      work.add(tracked);
    },
    get size() {
      return work.size;
    },
    async drain(timeoutMs) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), timeoutMs);
      });
      const done = (async () => {
        while (work.size > 0) await Promise.all(work);
        return true as const;
      })();
      const finished = await Promise.race([done, timeout]);
      clearTimeout(timer);
      return finished;
    },
  };
}
