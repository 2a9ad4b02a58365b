// Wall-clock time in an IANA timezone, from the platform's own tz database (Intl): reading an
// instant's local date and time, and finding the instant a local date and time means.
// Daylight saving's two edge cases are decided here, once: a local time that does not exist
// that day (clocks go forward) means the first valid minute after the gap, and a local time
// that happens twice (clocks go back) means its first occurrence.

const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;

/** A local date and time, as the fields of a UTC date (so plain Date.UTC arithmetic works on it). */
export type WallClock = number;

const formats = new Map<string, Intl.DateTimeFormat>();

function formatFor(timeZone: string): Intl.DateTimeFormat {
  let format = formats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    formats.set(timeZone, format);
  }
  return format;
}

/** The local date and time of `instant` in `timeZone`, as a WallClock (to the millisecond). */
export function wallClockOf(instant: number, timeZone: string): WallClock {
  const parts: Record<string, number> = {};
  for (const part of formatFor(timeZone).formatToParts(new Date(instant))) {
    if (part.type !== "literal") parts[part.type] = Number(part.value);
  }
  const wholeSecond = Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!);
  return wholeSecond + (((instant % 1000) + 1000) % 1000);
}

/** How far (ms) the timezone is ahead of UTC at `instant`. */
function offsetAt(instant: number, timeZone: string): number {
  return wallClockOf(instant, timeZone) - instant;
}

/**
 * The instant a local time means in `timeZone`: the first occurrence of a time that happens
 * twice, and the first valid minute after the gap for a time that does not exist.
 */
export function instantOf(wall: WallClock, timeZone: string): number {
  const offsets = [...new Set([offsetAt(wall - DAY_MS, timeZone), offsetAt(wall, timeZone), offsetAt(wall + DAY_MS, timeZone)])];
  const matches = offsets.map((offset) => wall - offset).filter((candidate) => wallClockOf(candidate, timeZone) === wall);
  if (matches.length > 0) return Math.min(...matches);
  // In a gap: the clocks jumped from before `wall` to after it. The jump happened between the
  // two readings of `wall` (with the old offset and with the new one); find its minute.
  const candidates = offsets.map((offset) => wall - offset);
  let before = Math.min(...candidates);
  let after = Math.max(...candidates);
  while (after - before > MINUTE_MS) {
    const middle = before + Math.max(MINUTE_MS, Math.floor((after - before) / (2 * MINUTE_MS)) * MINUTE_MS);
    if (wallClockOf(middle, timeZone) < wall) before = middle;
    else after = middle;
  }
  return after;
}

const WEEKDAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"] as const;
const pad = (value: number) => String(value).padStart(2, "0");

/** `2027-01-18 09:00` */
export function localDateTime(instant: number, timeZone: string): string {
  const wall = new Date(wallClockOf(instant, timeZone));
  return `${wall.getUTCFullYear()}-${pad(wall.getUTCMonth() + 1)}-${pad(wall.getUTCDate())} ${pad(wall.getUTCHours())}:${pad(wall.getUTCMinutes())}`;
}

/** `2027-01-18 09:00 Europe/Berlin (Mon)`: how every reply shows a slot. */
export function slotText(instant: number, timeZone: string): string {
  const weekday = WEEKDAYS[new Date(wallClockOf(instant, timeZone)).getUTCDay()]!;
  return `${localDateTime(instant, timeZone)} ${timeZone} (${weekday})`;
}

/** `09:00` when both instants fall on the same local day, else `2027-01-18 09:00`. */
export function clockText(instant: number, timeZone: string, sameDayAs: number): string {
  const full = localDateTime(instant, timeZone);
  return full.slice(0, 10) === localDateTime(sameDayAs, timeZone).slice(0, 10) ? full.slice(11) : full;
}
