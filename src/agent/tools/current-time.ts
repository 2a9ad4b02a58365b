// The `current_time` tool: the date and time now in an IANA time zone, as readable text
// and as ISO 8601 with the zone's offset. The clock is injectable for tests.
import { z } from "zod";
import type { Tool } from "../../contracts/types.js";

const CurrentTimeArgs = z.object({
  timezone: z
    .string()
    .max(100, "expects at most 100 characters")
    .optional()
    .describe('IANA time zone such as "Europe/Paris" or "America/New_York"; UTC when left out'),
});

type CurrentTimeArgs = z.infer<typeof CurrentTimeArgs>;

interface ZonedFormatters {
  /** The zone as asked for, in canonical case ("Europe/Paris" for "europe/paris"). */
  readonly zone: string;
  readonly numeric: Intl.DateTimeFormat;
  readonly names: Intl.DateTimeFormat;
}

/** Throws a model-readable Error for an unknown zone. */
function formattersFor(timezone: string): ZonedFormatters {
  try {
    const numeric = new Intl.DateTimeFormat("en-GB", {
      timeZone: timezone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      hourCycle: "h23",
    });
    const names = new Intl.DateTimeFormat("en-GB", { timeZone: timezone, weekday: "long", month: "long" });
    const resolved = numeric.resolvedOptions().timeZone;
    // ICU may canonicalise to an older alias (Asia/Kolkata -> Asia/Calcutta): keep the name asked for, in proper case.
    return { zone: resolved.toLowerCase() === timezone.toLowerCase() ? resolved : timezone, numeric, names };
  } catch {
    throw new Error(`Unknown time zone "${timezone}": use an IANA name such as Europe/Paris`);
  }
}

function partsOf(formatter: Intl.DateTimeFormat, instant: Date): Record<string, string> {
  return Object.fromEntries(formatter.formatToParts(instant).map((part) => [part.type, part.value]));
}

/** The zone's offset from UTC at that instant, as ±HH:MM, from the wall-clock reading. */
function offsetOf(clock: Record<string, string>, instant: Date): string {
  const asUtc = Date.UTC(
    Number(clock.year),
    Number(clock.month) - 1,
    Number(clock.day),
    Number(clock.hour),
    Number(clock.minute),
    Number(clock.second),
  );
  const wholeSeconds = Math.floor(instant.getTime() / 1000) * 1000;
  const minutes = Math.round((asUtc - wholeSeconds) / 60_000);
  const absolute = Math.abs(minutes);
  return `${minutes < 0 ? "-" : "+"}${String(Math.floor(absolute / 60)).padStart(2, "0")}:${String(absolute % 60).padStart(2, "0")}`;
}

function describeTime(instant: Date, timezone: string): string {
  const { zone, numeric, names } = formattersFor(timezone);
  const clock = partsOf(numeric, instant);
  const named = partsOf(names, instant);
  const time = `${clock.hour}:${clock.minute}:${clock.second}`;
  const offset = offsetOf(clock, instant);
  const iso = `${clock.year}-${clock.month}-${clock.day}T${time}${offset}`;
  return `${named.weekday} ${clock.day} ${named.month} ${clock.year}, ${time} in ${zone} (UTC${offset})\nISO 8601: ${iso}`;
}

export function createCurrentTimeTool(now: () => Date): Tool<CurrentTimeArgs> {
  return {
    name: "current_time",
    description: "Returns the current date and time in a time zone (UTC by default).",
    schema: CurrentTimeArgs,
    effect: "read",
    async execute({ timezone }) {
      return describeTime(now(), timezone ?? "UTC");
    },
  };
}

export const currentTimeTool: Tool<CurrentTimeArgs> = createCurrentTimeTool(() => new Date());
