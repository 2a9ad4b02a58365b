// Keeps a chat surface showing the newest text (a status line, a progress message, a trace)
// without calling the platform more than once per interval. Values pushed while a write waits
// or runs are merged (by default the newest wins) and written together; one write runs at a
// time, so writes never arrive out of order. A rate-limited write finishes late (the client
// waits out Retry-After) and the interval counts from when it finished. flush(), discard()
// and close() cut a wait short: the end of a run never waits out an interval.

export interface ThrottledWriter<T> {
  /** Returns at once. Ignored once closed. */
  push(value: T): void;
  /** Written right after a write under way, before what waits, without waiting out the interval; later values wait the interval after it. */
  pushNow(value: T): void;
  /** Writes what waits without waiting out the interval; resolves when everything pushed so far is written (or failed). */
  flush(): Promise<void>;
  /** Forgets what was pushed but not written yet; a write already under way still finishes. */
  discard(): void;
  /** Forgets what waits, ignores later pushes, and resolves once the write under way finished. */
  close(): Promise<void>;
}

export interface ThrottledWriterOptions<T> {
  readonly minIntervalMs: number;
  /** Combines a value still waiting with a newer one; default: the newer one. */
  readonly merge?: (waiting: T, next: T) => T;
  readonly now?: () => number;
  /** Resolves after `ms`, or as soon as `signal` aborts. Must not reject. */
  readonly sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Must not throw. */
  readonly onError: (error: unknown) => void;
}

/** Resolves after `ms`, or as soon as `signal` aborts. */
export function timerSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

/** The first value is written at once; `write` is never called twice at the same time. */
export function createThrottledWriter<T>(write: (value: T) => Promise<void>, options: ThrottledWriterOptions<T>): ThrottledWriter<T> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? timerSleep;
  const merge = options.merge ?? ((_waiting: T, next: T) => next);
  let waiting: { value: T } | undefined;
  /** Written before what waits, without waiting out the interval; later values do not merge into it. */
  let urgent: { value: T } | undefined;
  let lastWriteEnd = Number.NEGATIVE_INFINITY;
  let running: Promise<void> | undefined;
  let pause: AbortController | undefined;
  let hurry = false;
  let closed = false;

  const wake = () => pause?.abort();

  // Reaches an await before it can return whenever a value is waiting, so `running` is set first.
  async function drain(): Promise<void> {
    while (urgent !== undefined || waiting !== undefined) {
      const wait = lastWriteEnd + options.minIntervalMs - now();
      if (urgent === undefined && wait > 0 && !hurry) {
        pause = new AbortController();
        await sleep(wait, pause.signal);
        pause = undefined;
      }
      const next = urgent ?? waiting;
      if (next === undefined) break;
      if (next === urgent) urgent = undefined;
      else waiting = undefined;
      try {
        await write(next.value);
      } catch (error) {
        options.onError(error);
      }
      lastWriteEnd = now();
    }
    hurry = false;
    running = undefined;
  }

  async function settle(): Promise<void> {
    while (running) {
      hurry = true;
      wake();
      await running;
    }
  }

  return {
    push(value) {
      if (closed) return;
      waiting = waiting === undefined ? { value } : { value: merge(waiting.value, value) };
      running ??= drain();
    },
    pushNow(value) {
      if (closed) return;
      // What waited is older than this value: it goes with it.
      const before = urgent ?? waiting;
      urgent = before === undefined ? { value } : { value: merge(before.value, value) };
      waiting = undefined;
      wake();
      running ??= drain();
    },
    flush: settle,
    discard() {
      waiting = undefined;
      urgent = undefined;
      wake();
    },
    async close() {
      closed = true;
      waiting = undefined;
      urgent = undefined;
      await settle();
    },
  };
}
