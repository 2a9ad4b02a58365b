// The slot timer of one process (the SQLite default): every armed slot in a map, and one timer
// for the earliest, however many schedules there are; unref'd, so it never keeps the process
// alive. Nothing here needs to survive a restart: the start arms every schedule again from
// the store. A fire that fails is tried again a little later.
import type { Logger } from "../logger.js";
import type { SlotTimer } from "./ports.js";
import { chainSettled } from "../settled-chain.js";

/** The clock and timer the slot timer runs on (injected in tests). */
export interface TimerClock {
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realTimerClock: TimerClock = {
  now: Date.now,
  setTimeout(callback, ms) {
    const handle = setTimeout(callback, ms);
    handle.unref();
    return handle;
  },
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** Node's longest timer; a slot further away is reached by waking up on the way. */
const MAX_WAIT_MS = 2 ** 31 - 1;
const RETRY_MS = 30_000;
/** Slots due at one moment are fired this many at a time. */
const BATCH = 16;

export interface LocalSlotTimer extends SlotTimer {
  /** Resolves when no fire is in flight (tests). */
  idle(): Promise<void>;
}

export function createLocalSlotTimer(logger: Logger, clock: TimerClock = realTimerClock): LocalSlotTimer {
  /** Per schedule, its armed slot and when to fire it (later than the slot while a failed fire waits to be tried again). */
  const armed = new Map<string, { readonly at: number; readonly due: number }>();
  let fire: ((id: string, at: number) => Promise<void>) | undefined;
  let timer: { readonly handle: unknown; readonly at: number } | undefined;
  let firing: Promise<void> = Promise.resolve();
  let closed = false;

  /** Moves the one timer earlier when `at` is earlier than it. */
  function wakeAt(at: number): void {
    if (closed || !fire || (timer && timer.at <= at)) return;
    if (timer) clock.clearTimeout(timer.handle);
    timer = { handle: clock.setTimeout(wake, Math.min(MAX_WAIT_MS, Math.max(0, at - clock.now()))), at };
  }

  function wake(): void {
    timer = undefined;
    const now = clock.now();
    const due: Array<[string, number]> = [];
    let earliest = Number.POSITIVE_INFINITY;
    for (const [id, entry] of armed) {
      if (entry.due <= now) due.push([id, entry.at]);
      else earliest = Math.min(earliest, entry.due);
    }
    for (const [id] of due) armed.delete(id);
    firing = firing.then(() => fireAll(due));
    if (earliest !== Number.POSITIVE_INFINITY) wakeAt(earliest);
  }

  async function fireAll(due: ReadonlyArray<[string, number]>): Promise<void> {
    for (let start = 0; start < due.length && !closed; start += BATCH) {
      await Promise.all(
        due.slice(start, start + BATCH).map(async ([id, at]) => {
          try {
            await fire!(id, at);
          } catch (error) {
            logger.warn({ err: error, scheduleId: id }, "a schedule's slot could not be fired; trying again shortly");
            // The same slot again, even when the fire armed the next one before it failed: the fire finds out
            // which is current (an older slot only arms the schedule's current one again).
            set(id, at, clock.now() + RETRY_MS);
          }
        }),
      );
    }
  }

  function set(id: string, at: number, due = at): void {
    armed.set(id, { at, due });
    wakeAt(due);
  }

  return {
    async arm(id, at) {
      set(id, at);
    },
    async restore(entries) {
      for (const { id, at } of entries) set(id, at);
    },
    async disarm(id, at) {
      if (armed.get(id)?.at === at) armed.delete(id);
    },
    start(handler) {
      if (fire) throw new Error("the slot timer was already started");
      fire = handler;
      let earliest = Number.POSITIVE_INFINITY;
      for (const entry of armed.values()) earliest = Math.min(earliest, entry.due);
      if (earliest !== Number.POSITIVE_INFINITY) wakeAt(earliest);
    },
    async close() {
      closed = true;
      if (timer) clock.clearTimeout(timer.handle);
      timer = undefined;
      await firing;
    },
    idle: () => chainSettled(() => firing),
  };
}
