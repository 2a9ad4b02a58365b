// Turns a parsed time into the schedule's stored time, in the one timezone that applies: the
// phrase's own, else the person's (from their chat profile), else SCHEDULE_DEFAULT_TZ. None of
// them: refused with one line asking for it. The machine's timezone is only ever suggested.
import { cronProblem, slotAfter, type When } from "./slots.js";
import type { ParsedWhen } from "./when-phrase.js";
import { timeZoneName } from "../time-zone.js";
import { instantOf, slotText, wallClockOf } from "./wall-clock.js";

export interface ZoneChoice {
  /** The person's own timezone (e.g. Slack's users.info `tz`), when the surface knows it. */
  readonly person?: string;
  /** SCHEDULE_DEFAULT_TZ. */
  readonly configured?: string;
  /** This machine's timezone: named in the refusal as a suggestion, never used. */
  readonly machine?: string;
}

export type Resolution = { readonly kind: "ok"; readonly when: When } | { readonly kind: "refused"; readonly text: string };

const DAY_MS = 24 * 60 * 60_000;

/** The timezone that applies, or undefined when none is known. An unusable profile timezone counts as none. */
export function chooseTimeZone(phraseZone: string | undefined, zones: ZoneChoice): string | undefined {
  return phraseZone ?? (zones.person ? timeZoneName(zones.person) : undefined) ?? zones.configured;
}

function askForTimeZone(parsed: ParsedWhen, zones: ZoneChoice): string {
  const machine = zones.machine ? timeZoneName(zones.machine) : undefined;
  const example = `${parsed.phrase} ${machine ?? "Europe/Berlin"}`;
  return `Which timezone? Add one to the time, like \`${example}\`${machine ? ` (this machine's is ${machine})` : ""}, or ask an admin to set SCHEDULE_DEFAULT_TZ.`;
}

export function resolveWhen(parsed: ParsedWhen, zones: ZoneChoice, now: number): Resolution {
  const timeZone = chooseTimeZone(parsed.timeZone, zones);
  if (parsed.kind === "after") {
    const at = now + parsed.ms;
    return { kind: "ok", when: { kind: "once", at, phrase: parsed.phrase, ...(timeZone ? { timeZone } : {}) } };
  }
  if (!timeZone) return { kind: "refused", text: askForTimeZone(parsed, zones) };
  if (parsed.kind === "cron") {
    const problem = cronProblem(parsed.expression);
    if (problem) return { kind: "refused", text: `\`cron ${parsed.expression}\` can't be used: ${problem}.` };
    const when: When = { kind: "cron", expression: parsed.expression, timeZone, phrase: parsed.phrase };
    if (slotAfter(when, now) === undefined)
      return { kind: "refused", text: `\`cron ${parsed.expression}\` never comes: no date matches it.` };
    return { kind: "ok", when };
  }
  const today = new Date(wallClockOf(now, timeZone));
  const day =
    parsed.day === "today" || parsed.day === "tomorrow"
      ? {
          year: today.getUTCFullYear(),
          month: today.getUTCMonth() + 1,
          date: today.getUTCDate() + (parsed.day === "tomorrow" ? 1 : 0),
        }
      : parsed.day;
  const at = instantOf(Date.UTC(day.year, day.month - 1, day.date, parsed.hour, parsed.minute), timeZone);
  if (at <= now) return { kind: "refused", text: `${slotText(at, timeZone)} has passed already; pick a later time.` };
  if (at - now > 5 * 366 * DAY_MS)
    return { kind: "refused", text: `${slotText(at, timeZone)} is more than five years away; pick a nearer time.` };
  return { kind: "ok", when: { kind: "once", at, timeZone, phrase: parsed.phrase } };
}
