// One timeout signal shared by every operation that starts within the same second, instead of
// one each: each AbortSignal gets a hidden class of its own in V8, a cost every run paid for a
// fact extraction that almost never times out. An operation gets between `ms - 1 s` and `ms`.
import { setMaxListeners } from "node:events";

const SHARE_MS = 1_000;

/** `clock`: milliseconds, monotonic. */
export function sharedTimeout(ms: number, clock: () => number = () => performance.now()): () => AbortSignal {
  let current: AbortSignal | undefined;
  let until = 0;
  return () => {
    const now = clock();
    if (current === undefined || now >= until) {
      current = AbortSignal.timeout(ms);
      // Every operation of that second listens to it: hundreds are expected, not a leak.
      setMaxListeners(0, current);
      until = now + SHARE_MS;
    }
    return current;
  };
}
