// Keeps Slack up to date without calling it more than once per interval: values pushed while
// a write waits or runs are merged (by default the newest wins) and written together. A write
// that was rate limited finishes late (the client waits out Retry-After), and the interval
// counts from when it finished.

export interface Throttle<T> {
  /** Returns at once. */
  push(value: T): void;
  /** Resolves when everything pushed so far has been written (or failed). */
  flush(): Promise<void>;
  /** Forgets what was pushed but not written yet; a write already under way still finishes. */
  discard(): void;
}

export interface ThrottleOptions<T> {
  readonly minIntervalMs: number;
  /** Combines a value still waiting with a newer one; default: the newer one. */
  readonly merge?: (waiting: T, next: T) => T;
  readonly now?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
  /** Must not throw. */
  readonly onError: (error: unknown) => void;
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The first value is written at once; `write` is never called twice at the same time. */
export function createThrottle<T>(write: (value: T) => Promise<void>, options: ThrottleOptions<T>): Throttle<T> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? realSleep;
  const merge = options.merge ?? ((_waiting: T, next: T) => next);
  let waiting: { value: T } | undefined;
  let lastWriteEnd = Number.NEGATIVE_INFINITY;
  let running: Promise<void> | undefined;

  // Reaches an await before it can return whenever a value is waiting, so `running` is set first.
  async function drain(): Promise<void> {
    while (waiting !== undefined) {
      const wait = lastWriteEnd + options.minIntervalMs - now();
      if (wait > 0) await sleep(wait);
      if (waiting === undefined) break;
      const { value } = waiting;
      waiting = undefined;
      try {
        await write(value);
      } catch (error) {
        options.onError(error);
      }
      lastWriteEnd = now();
    }
    running = undefined;
  }

  return {
    push(value) {
      waiting = waiting === undefined ? { value } : { value: merge(waiting.value, value) };
      running ??= drain();
    },
    async flush() {
      while (running) await running;
    },
    discard() {
      waiting = undefined;
    },
  };
}
