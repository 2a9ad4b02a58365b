// Lines typed in the console, kept in order until the session reads them: a line typed while
// a run works waits its turn instead of being lost.

export interface QueuedLine {
  readonly text: string;
  /** Typed before the session asked for it (while a run worked). */
  readonly early: boolean;
}

export interface LineQueue {
  push(line: string): void;
  /** No more input will come; queued lines can still be read. */
  end(): void;
  /** Stops at once: queued lines are dropped and every waiting read gets undefined. */
  close(): void;
  /** The oldest unread line; undefined once nothing is left and input ended. */
  next(): Promise<QueuedLine | undefined>;
  /**
   * The first line typed after this call, for answers to a question just shown: a line typed
   * ahead (before the question could be seen) never answers it and stays queued. Undefined at
   * the end of input or when `signal` aborts.
   */
  nextFresh(signal?: AbortSignal): Promise<string | undefined>;
}

type Waiter = (line: string | undefined) => void;

export function createLineQueue(): LineQueue {
  const queued: string[] = [];
  let ended = false;
  let reader: Waiter | undefined;
  let freshReader: Waiter | undefined;

  const end = () => {
    ended = true;
    const waiting = [reader, freshReader];
    reader = freshReader = undefined;
    for (const waiter of waiting) waiter?.(undefined);
  };

  return {
    push(line) {
      if (ended) return;
      if (freshReader) {
        const waiter = freshReader;
        freshReader = undefined;
        waiter(line);
      } else if (reader) {
        const waiter = reader;
        reader = undefined;
        waiter(line);
      } else {
        queued.push(line);
      }
    },

    end,

    close() {
      queued.length = 0;
      end();
    },

    next() {
      const first = queued.shift();
      if (first !== undefined) return Promise.resolve({ text: first, early: true });
      if (ended) return Promise.resolve(undefined);
      return new Promise((resolve) => {
        reader = (line) => resolve(line === undefined ? undefined : { text: line, early: false });
      });
    },

    nextFresh(signal) {
      if (ended || signal?.aborted) return Promise.resolve(undefined);
      return new Promise((resolve) => {
        const waiter: Waiter = (line) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(line);
        };
        const onAbort = () => {
          if (freshReader === waiter) freshReader = undefined;
          resolve(undefined);
        };
        freshReader = waiter;
        signal?.addEventListener("abort", onAbort, { once: true });
      });
    },
  };
}
