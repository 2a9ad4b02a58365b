// The in-process WorkQueue (the SQLite default: one bot process). Items of one conversation
// run one at a time in the order added; different conversations share `concurrency` slots, and
// an item waiting for its conversation's turn holds no slot, so one busy conversation never
// starves the others. Nothing here outlives the process: what an item stands for is in the
// store, and the runner queues unfinished work again at the next start.
import { setMaxListeners } from "node:events";
import type { Logger } from "../../logger.js";
import { retryDelay, STORE_RETRY } from "../retry.js";
import type { WorkHandler, WorkItem, WorkQueue } from "./work-queue.js";

export interface LocalWorkQueue extends WorkQueue {
  /** Handlers running now. */
  readonly running: number;
}

export function createLocalWorkQueue(logger: Logger): LocalWorkQueue {
  // Per conversation, in arrival order; a lane's head is running or waiting in `ready`.
  const lanes = new Map<string, WorkItem[]>();
  // Conversations whose head waits for a slot, in the order they became next in line.
  const ready: string[] = [];
  const delayed = new Set<NodeJS.Timeout>();
  // One signal for every item: the only abort is close's, and it ends them all at once.
  const shutdown = new AbortController();
  // Every running item listens to it: hundreds at once are expected, not a leak.
  setMaxListeners(0, shutdown.signal);
  let handler: WorkHandler | undefined;
  let concurrency = 0;
  let running = 0;
  let closing = false;
  let whenIdle: Array<() => void> = [];
  const attempts = new WeakMap<WorkItem, number>();

  function enqueue(item: WorkItem): void {
    const lane = lanes.get(item.conversationKey);
    if (lane) {
      lane.push(item);
      return;
    }
    lanes.set(item.conversationKey, [item]);
    ready.push(item.conversationKey);
    pump();
  }

  function pump(): void {
    while (handler && !closing && running < concurrency && ready.length > 0) start(ready.shift() as string);
    if (running === 0 && whenIdle.length > 0) {
      const waiters = whenIdle;
      whenIdle = [];
      for (const wake of waiters) wake();
    }
  }

  /** A handler that rejected (the store failed under it) is tried again with backoff, bounded; after that its record waits for the next start. */
  function retry(item: WorkItem, error: unknown): void {
    const attempt = (attempts.get(item) ?? 1) + 1;
    if (closing || attempt > STORE_RETRY.attempts) {
      attempts.delete(item);
      logger.error({ err: error, item }, "a queued run failed; its record stays unfinished for the next start");
      return;
    }
    attempts.set(item, attempt);
    logger.warn({ err: error, item, attempt }, "a queued run failed; trying it again");
    addLater(item, retryDelay(STORE_RETRY, attempt));
  }

  function addLater(item: WorkItem, delayMs: number): void {
    const timer = setTimeout(() => {
      delayed.delete(timer);
      enqueue(item);
    }, delayMs);
    timer.unref();
    delayed.add(timer);
  }

  function start(key: string): void {
    const item = (lanes.get(key) as WorkItem[])[0] as WorkItem;
    running += 1;
    void Promise.resolve()
      .then(() => (handler as WorkHandler)(item, shutdown.signal))
      .then(
        () => void attempts.delete(item),
        (error: unknown) => retry(item, error),
      )
      .finally(() => {
        running -= 1;
        const lane = lanes.get(key) as WorkItem[];
        lane.shift();
        if (lane.length === 0) lanes.delete(key);
        else ready.push(key);
        pump();
      });
  }

  return {
    async add(item, options) {
      if (closing) return;
      const delayMs = options?.delayMs ?? 0;
      if (delayMs <= 0) return enqueue(item);
      addLater(item, delayMs);
    },
    start(workHandler, slots) {
      if (handler) throw new Error("the work queue was started twice");
      if (!(Number.isInteger(slots) && slots >= 1)) throw new RangeError(`concurrency must be a whole number of at least 1 (got ${slots})`);
      handler = workHandler;
      concurrency = slots;
      pump();
    },
    async depth() {
      let items = delayed.size;
      for (const lane of lanes.values()) items += lane.length;
      return items;
    },
    get running() {
      return running;
    },
    async close(graceMs) {
      closing = true;
      for (const timer of delayed) clearTimeout(timer);
      delayed.clear();
      if (running === 0) return;
      const idle = new Promise<void>((resolve) => whenIdle.push(resolve));
      const timer = setTimeout(() => shutdown.abort(new Error("the bot is shutting down")), graceMs);
      await idle;
      clearTimeout(timer);
    },
  };
}
