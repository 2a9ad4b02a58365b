// The time of a schedule as a person writes it, read by hand into a cron pattern, a local date
// and time, or a delay. Pure: nothing here knows the clock or whose timezone applies (see
// when-resolve.ts). Every problem is one line the person can act on.
import { timeZoneName } from "../time-zone.js";

export type ParsedWhen =
  /** `every …` and `cron …`: a 5-field pattern in local time. */
  | { readonly kind: "cron"; readonly expression: string; readonly timeZone?: string; readonly phrase: string }
  /** `today at`, `tomorrow at`, `on YYYY-MM-DD at`: one local date and time. */
  | {
      readonly kind: "local";
      readonly day: "today" | "tomorrow" | { readonly year: number; readonly month: number; readonly date: number };
      readonly hour: number;
      readonly minute: number;
      readonly timeZone?: string;
      readonly phrase: string;
    }
  /** `in 20 minutes`: that long after the request, to the second; a timezone only shows it. */
  | { readonly kind: "after"; readonly ms: number; readonly timeZone?: string; readonly phrase: string };

export type PhraseParse = { readonly kind: "ok"; readonly when: ParsedWhen } | { readonly kind: "invalid"; readonly problem: string };

export const PHRASE_EXAMPLES =
  "`every day at 9:00`, `every weekday at 9:00`, `every monday at 10:30`, `every 2 hours`, `in 20 minutes`, `tomorrow at 8:00`, `on 2027-01-15 at 14:00` or `cron 0 9 * * 1-5`, each optionally followed by a timezone like `Europe/Berlin` or `UTC`";

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
/** `in …` reaches at most a year ahead. */
const MAX_DELAY_MS = 366 * 24 * HOUR_MS;

const WEEKDAYS: Readonly<Record<string, number>> = {
  sunday: 0,
  sun: 0,
  monday: 1,
  mon: 1,
  tuesday: 2,
  tue: 2,
  wednesday: 3,
  wed: 3,
  thursday: 4,
  thu: 4,
  friday: 5,
  fri: 5,
  saturday: 6,
  sat: 6,
};

const invalid = (problem: string): PhraseParse => ({ kind: "invalid", problem });

/** `9:00`, `09:00`, `23:59`: the 24-hour clock only. */
function clockOf(text: string): { hour: number; minute: number } | string {
  const match = /^([01]?\d|2[0-3]):([0-5]\d)$/.exec(text);
  if (match) return { hour: Number(match[1]), minute: Number(match[2]) };
  return `"${text}" is not a time on the 24-hour clock: write it like 09:00 or 17:30`;
}

function countOf(text: string, max: number, unit: string): number | string {
  const value = /^\d{1,7}$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < 1 || value > max) return `expects a whole number of ${unit} from 1 to ${max} (got "${text}")`;
  return value;
}

/** The last word when it names a timezone; a word that looks like one but is not is a problem. */
function splitTimeZone(words: readonly string[]): { words: readonly string[]; timeZone?: string } | string {
  const last = words[words.length - 1];
  if (last === undefined || words.length < 2) return { words };
  const zone = timeZoneName(last);
  if (zone) return { words: words.slice(0, -1), timeZone: zone };
  if (last.includes("/")) return `"${last}" is not a timezone I know: use an IANA name like Europe/Berlin or America/New_York, or UTC`;
  return { words };
}

function parseEvery(rest: readonly string[], phrase: string, timeZone: string | undefined): PhraseParse {
  const zone = timeZone === undefined ? {} : { timeZone };
  const cron = (expression: string): PhraseParse => ({ kind: "ok", when: { kind: "cron", expression, phrase, ...zone } });
  const [first, second, third] = rest;
  if (rest.length === 1 && first === "hour") return cron("0 * * * *");
  if (rest.length === 1 && first === "minute") return cron("* * * * *");
  if (rest.length === 2 && (second === "hours" || second === "hour" || second === "minutes" || second === "minute")) {
    const hours = second.startsWith("hour");
    const count = countOf(first!, hours ? 23 : 59, second);
    if (typeof count === "string") return invalid(`every N ${second}: ${count}`);
    // Anchored at the top of the hour (or of the minute): every 2 hours is 00:00, 02:00, 04:00…
    return cron(hours ? (count === 1 ? "0 * * * *" : `0 */${count} * * *`) : count === 1 ? "* * * * *" : `*/${count} * * * *`);
  }
  if (rest.length === 3 && second === "at") {
    const clock = clockOf(third!);
    if (typeof clock === "string") return invalid(clock);
    const days = first === "day" ? "*" : first === "weekday" ? "1-5" : WEEKDAYS[first!.replace(/s$/, "")]?.toString();
    if (days === undefined) return invalid(`"every ${first}" is not a day I know: write every day, every weekday or every monday…sunday`);
    return cron(`${clock.minute} ${clock.hour} * * ${days}`);
  }
  if (rest.length === 1 && (first === "day" || first === "weekday" || WEEKDAYS[first!] !== undefined))
    return invalid(`"every ${first}" needs a time: every ${first} at 9:00`);
  return invalid(`I can't read "${phrase}": write ${PHRASE_EXAMPLES}`);
}

/** Reads the `<when>` part of `schedule <when>: <what>`. */
export function parseWhen(text: string): PhraseParse {
  const phrase = text.trim().replace(/\s+/g, " ");
  if (phrase === "") return invalid(`the time is missing: write ${PHRASE_EXAMPLES}`);
  const words = phrase.split(" ");
  if (words[0]!.toLowerCase() === "cron") {
    const fields = words.slice(1);
    if (fields.length === 6) {
      const zone = timeZoneName(fields[5]!);
      if (!zone) return invalid(`"${fields[5]}" is not a timezone I know: use an IANA name like Europe/Berlin, or UTC`);
      return { kind: "ok", when: { kind: "cron", expression: fields.slice(0, 5).join(" "), timeZone: zone, phrase } };
    }
    if (fields.length !== 5) return invalid("cron expects exactly 5 fields (minute hour day month weekday) and an optional timezone");
    return { kind: "ok", when: { kind: "cron", expression: fields.join(" "), phrase } };
  }
  const split = splitTimeZone(words);
  if (typeof split === "string") return invalid(split);
  const [head, ...rest] = split.words.map((word) => word.toLowerCase());
  const zone = split.timeZone === undefined ? {} : { timeZone: split.timeZone };
  if (head === "every") return parseEvery(rest, phrase, split.timeZone);
  if (head === "in" && rest.length === 2) {
    const unit = rest[1]!;
    const unitMs = /^(minutes?|mins?)$/.test(unit) ? MINUTE_MS : /^hours?$/.test(unit) ? HOUR_MS : undefined;
    if (unitMs === undefined) return invalid(`"in ${rest.join(" ")}": write in 20 minutes or in 2 hours`);
    const count = countOf(rest[0]!, Math.floor(MAX_DELAY_MS / unitMs), unit);
    if (typeof count === "string") return invalid(`in N ${unit}: ${count}`);
    return { kind: "ok", when: { kind: "after", ms: count * unitMs, phrase, ...zone } };
  }
  if ((head === "today" || head === "tomorrow") && rest.length === 2 && rest[0] === "at") {
    const clock = clockOf(rest[1]!);
    if (typeof clock === "string") return invalid(clock);
    return { kind: "ok", when: { kind: "local", day: head, ...clock, phrase, ...zone } };
  }
  if (head === "on" && rest.length === 3 && rest[1] === "at") {
    const date = /^(\d{4})-(\d{2})-(\d{2})$/.exec(rest[0]!);
    const day = date ? { year: Number(date[1]), month: Number(date[2]), date: Number(date[3]) } : undefined;
    const real = day && new Date(Date.UTC(day.year, day.month - 1, day.date)).getUTCDate() === day.date && day.month <= 12;
    if (!day || !real) return invalid(`"${rest[0]}" is not a date: write it like 2027-01-15`);
    const clock = clockOf(rest[2]!);
    if (typeof clock === "string") return invalid(clock);
    return { kind: "ok", when: { kind: "local", day, ...clock, phrase, ...zone } };
  }
  return invalid(`I can't read "${phrase}": write ${PHRASE_EXAMPLES}`);
}

export type ScheduleRequest =
  | { readonly kind: "request"; readonly when: string; readonly what: string }
  /** No `: ` (or nothing on one side of it): the command answers with its usage line. */
  | { readonly kind: "usage" };

/** `<when>: <what>`: the first `: ` ends the time (a time like 9:00 has no space after its colon). */
export function splitScheduleText(text: string): ScheduleRequest {
  const at = text.indexOf(": ");
  if (at < 0) return { kind: "usage" };
  const when = text.slice(0, at).trim();
  const what = text.slice(at + 2).trim();
  return when === "" || what === "" ? { kind: "usage" } : { kind: "request", when, what };
}
