// What to do when a schedule's armed slot comes due, perhaps long after its time (the bot was
// down): pure. Of the slots missed, only the latest may run, and only when it is no older than
// SCHEDULE_CATCH_UP_MINUTES (marked late); the older ones are skipped and counted, never
// replayed in a burst. The next slot armed is always in the future.
import { slotAfter, type When } from "./slots.js";

/** A slot fired within this of its time is on time; later it is late. */
export const ON_TIME_MS = 60_000;
/** Missed slots counted one by one at most; a longer outage counts this many. */
const MAX_COUNTED = 10_000;

export type FirePlan =
  /** The armed slot is not due yet (a timer woke early): arm it again. */
  | { readonly kind: "early" }
  | {
      readonly kind: "due";
      readonly run?: { readonly slotAt: number; readonly late: boolean };
      /** Missed slots that will not run, oldest first. */
      readonly skipped: { readonly count: number; readonly first?: number; readonly last?: number };
      /** The slot to arm next; none: the schedule has no more (a one-shot after its slot). */
      readonly next?: number;
    };

export function planFire(when: When, armed: number, now: number, catchUpMs: number): FirePlan {
  if (armed > now) return { kind: "early" };
  // The latest due slot, looked for only where it could still run (a long outage is not walked slot by slot for it).
  const window = Math.max(catchUpMs, ON_TIME_MS);
  let latest: number | undefined;
  for (let slot = armed >= now - window ? armed : slotAfter(when, now - window - 1); slot !== undefined && slot <= now; ) {
    latest = slot;
    slot = slotAfter(when, slot);
  }
  const missed: number[] = [];
  for (
    let slot: number | undefined = armed;
    slot !== undefined && slot <= now && missed.length < MAX_COUNTED;
    slot = slotAfter(when, slot)
  ) {
    if (slot !== latest) missed.push(slot);
  }
  const next = slotAfter(when, now);
  return {
    kind: "due",
    ...(latest === undefined ? {} : { run: { slotAt: latest, late: now - latest > ON_TIME_MS } }),
    skipped: { count: missed.length, ...(missed.length > 0 ? { first: missed[0]!, last: missed[missed.length - 1]! } : {}) },
    ...(next === undefined ? {} : { next }),
  };
}
