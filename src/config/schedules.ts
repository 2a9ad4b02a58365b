// Schedules (src/schedules): the settings file's `schedules` entry of a channel overrides
// the first three there.
import { z } from "zod";
import { timeZoneName } from "../time-zone.js";
import { area } from "./area.js";
import { wholeNumber } from "./values.js";
import { variable } from "./variable.js";

/** A timezone by its canonical name (`europe/berlin` reads as Europe/Berlin). */
const timeZone = () => ({
  schema: z.string().transform((value, context) => {
    const name = timeZoneName(value);
    if (name) return name;
    context.addIssue({ code: "custom", message: "expects an IANA timezone like Europe/Berlin or America/New_York, or UTC" });
    return z.NEVER;
  }),
  range: "IANA name or `UTC`",
});

export const schedulesArea = area({
  title: "Schedules",
  about:
    "Runs that start on their own (see [Schedules](governance.md#schedules)); a channel's `schedules` entry in the settings file overrides the first three there.",
  variables: {
    /** Shortest time between two slots of a recurring schedule (one-shots are exempt). */
    minIntervalMinutes: variable("SCHEDULE_MIN_INTERVAL_MINUTES", wholeNumber(1, 1_440), {
      default: 15,
      meaning: "shortest time between two runs of a recurring schedule (one-shots are exempt)",
    }),
    /** Schedules not ended (active or paused) per person, and per channel. */
    maxPerUser: variable("SCHEDULE_MAX_PER_USER", wholeNumber(1, 1_000), {
      default: 10,
      meaning: "schedules not ended (active or paused) per person",
    }),
    maxPerChannel: variable("SCHEDULE_MAX_PER_CHANNEL", wholeNumber(1, 10_000), { default: 20, meaning: "… and per channel" }),
    /** A slot missed while the bot was down still runs (late) when it is at most this old; older ones are skipped. */
    catchUpMinutes: variable("SCHEDULE_CATCH_UP_MINUTES", wholeNumber(0, 1_440), {
      default: 60,
      meaning: "after downtime, the latest missed slot still runs (marked late) when it is at most this old; older ones are skipped",
    }),
    /** The timezone of a schedule whose phrase names none and whose owner's is unknown; unset: such a schedule is refused. */
    defaultTimeZone: variable("SCHEDULE_DEFAULT_TZ", timeZone(), {
      meaning: "timezone of a schedule whose time names none when the person's own is unknown; unset: such a schedule is refused",
    }),
  },
  shape: (schedules) => ({ schedules }),
});
