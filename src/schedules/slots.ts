// Slot arithmetic: when a schedule fires next. Every time shown to a person and every time
// fired comes from here. croner matches the cron pattern against local wall-clock time (at
// UTC offset 0, so the machine's own timezone never enters); wall-clock.ts turns each match
// into an instant in the schedule's timezone, deciding the daylight-saving edge cases the
// same way for every pattern: 09:00 stays 09:00, a local time that does not exist that day
// fires once at the first valid minute after the gap, and one that happens twice fires at
// its first occurrence only.
import { Cron } from "croner";
import { instantOf, wallClockOf } from "./wall-clock.js";

export type When =
  /** Recurring: a 5-field cron pattern read in `timeZone`. */
  | { readonly kind: "cron"; readonly expression: string; readonly timeZone: string; readonly phrase: string }
  /** One shot at an instant; `timeZone` (when known) is only for showing it. */
  | { readonly kind: "once"; readonly at: number; readonly timeZone?: string; readonly phrase: string };

/** Matches looked at for one answer before giving up (a pattern whose matches all fall in gaps or repeats). */
const MAX_MATCHES = 1_000;
/** Patterns kept compiled; more are compiled again on demand. */
const MAX_COMPILED = 2_000;
const compiled = new Map<string, Cron>();

function patternOf(expression: string): Cron {
  let cron = compiled.get(expression);
  if (!cron) {
    if (compiled.size >= MAX_COMPILED) compiled.clear();
    cron = new Cron(expression, { utcOffset: 0, mode: "5-part", paused: true });
    compiled.set(expression, cron);
  }
  return cron;
}

/** Why the pattern is not a 5-field cron expression croner accepts, or undefined when it is. */
export function cronProblem(expression: string): string | undefined {
  if (expression.trim().split(/\s+/).length !== 5) return "a cron expression has exactly 5 fields: minute hour day month weekday";
  try {
    patternOf(expression);
    return undefined;
  } catch (error) {
    return (error instanceof Error ? error.message : String(error)).replace(/^CronPattern: /, "");
  }
}

/** The first slot strictly after `after`, or undefined when there is none (a one-shot that passed, a pattern that never matches). */
export function slotAfter(when: When, after: number): number | undefined {
  if (when.kind === "once") return when.at > after ? when.at : undefined;
  const pattern = patternOf(when.expression);
  let wall = wallClockOf(after, when.timeZone);
  for (let looked = 0; looked < MAX_MATCHES; looked++) {
    const match = pattern.nextRun(new Date(wall));
    if (!match) return undefined;
    wall = match.getTime();
    // A match before `after` is the second pass through a repeated hour: its first occurrence has passed.
    const instant = instantOf(wall, when.timeZone);
    if (instant > after) return instant;
  }
  return undefined;
}

/** The next `count` slots after `after`, oldest first (fewer when the schedule ends sooner). */
export function nextSlots(when: When, after: number, count: number): number[] {
  const slots: number[] = [];
  let from = after;
  while (slots.length < count) {
    const next = slotAfter(when, from);
    if (next === undefined) break;
    slots.push(next);
    from = next;
  }
  return slots;
}

/**
 * The shortest time between two of the next `sample` slots (undefined for a one-shot or a
 * pattern with fewer than two). A cron pattern is the same set of times on every day it
 * matches, so its densest stretch shows within its first days.
 */
export function shortestGapMs(when: When, from: number, sample = 200): number | undefined {
  if (when.kind === "once") return undefined;
  const slots = nextSlots(when, from, sample);
  let shortest: number | undefined;
  for (let index = 1; index < slots.length; index++) {
    const gap = slots[index]! - slots[index - 1]!;
    if (shortest === undefined || gap < shortest) shortest = gap;
  }
  return shortest;
}
