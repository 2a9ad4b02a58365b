// Schedule times without a clock: phrases read into cron patterns and one-shots, the timezone
// that applies (never guessed), the slot arithmetic across daylight saving in Europe/Berlin,
// and what happens to slots missed while the bot was down.
import { describe, expect, it } from "vitest";
import { Cron } from "croner";
import { planFire } from "../../src/schedules/fire-plan.js";
import { nextSlots, shortestGapMs, slotAfter, type When } from "../../src/schedules/slots.js";
import { parseWhen, splitScheduleText, type ParsedWhen } from "../../src/schedules/when-phrase.js";
import { resolveWhen } from "../../src/schedules/when-resolve.js";
import { instantOf, slotText } from "../../src/schedules/wall-clock.js";
import { timeZoneName } from "../../src/time-zone.js";

const BERLIN = "Europe/Berlin";
const at = (iso: string) => Date.parse(iso);
const cron = (expression: string, timeZone = BERLIN): When => ({ kind: "cron", expression, timeZone, phrase: expression });
const shown = (when: When, after: string, count: number) => nextSlots(when, at(after), count).map((slot) => slotText(slot, BERLIN));

function parsed(text: string): ParsedWhen {
  const result = parseWhen(text);
  if (result.kind !== "ok") throw new Error(result.problem);
  return result.when;
}

describe("phrases", () => {
  it.each([
    ["every day at 9:00", "0 9 * * *"],
    ["every weekday at 09:00", "0 9 * * 1-5"],
    ["every monday at 10:30", "30 10 * * 1"],
    ["every Sunday at 23:59", "59 23 * * 0"],
    ["every 2 hours", "0 */2 * * *"],
    ["every hour", "0 * * * *"],
    ["every 15 minutes", "*/15 * * * *"],
    ["cron 0 9 * * 1-5", "0 9 * * 1-5"],
  ])("%s is the cron pattern %s", (text, expression) => {
    expect(parsed(text)).toEqual({ kind: "cron", expression, phrase: text });
  });

  it("takes a trailing timezone (IANA or UTC, any case) and keeps the phrase as written", () => {
    expect(parsed("every day at 9:00 europe/berlin")).toMatchObject({ expression: "0 9 * * *", timeZone: BERLIN });
    expect(parsed("every weekday at 9:00 UTC")).toMatchObject({ timeZone: "UTC" });
    expect(parsed("cron 0 9 * * 1-5 America/New_York")).toMatchObject({ expression: "0 9 * * 1-5", timeZone: "America/New_York" });
    expect(parsed("in 20 minutes Europe/Berlin")).toEqual({
      kind: "after",
      ms: 20 * 60_000,
      timeZone: BERLIN,
      phrase: "in 20 minutes Europe/Berlin",
    });
  });

  it("reads one-shots: in N minutes or hours, today, tomorrow, on a date", () => {
    expect(parsed("in 2 hours")).toEqual({ kind: "after", ms: 2 * 3_600_000, phrase: "in 2 hours" });
    expect(parsed("tomorrow at 8:00")).toMatchObject({ kind: "local", day: "tomorrow", hour: 8, minute: 0 });
    expect(parsed("on 2027-01-15 at 14:00 UTC")).toMatchObject({
      kind: "local",
      day: { year: 2027, month: 1, date: 15 },
      hour: 14,
      timeZone: "UTC",
    });
  });

  it.each([
    ["every day at 9am", '"9am" is not a time on the 24-hour clock'],
    ["every day at 25:00", '"25:00" is not a time on the 24-hour clock'],
    ["every monday", '"every monday" needs a time'],
    ["every fortnight at 9:00", '"every fortnight" is not a day I know'],
    ["every 0 hours", "expects a whole number of hours from 1 to 23"],
    ["every 24 hours", "expects a whole number of hours from 1 to 23"],
    ["on 2027-02-30 at 10:00", '"2027-02-30" is not a date'],
    ["every day at 9:00 Mars/Olympus", '"Mars/Olympus" is not a timezone I know'],
    ["cron 0 9 * *", "cron expects exactly 5 fields"],
    ["cron 0 9 * * 1 CET", '"CET" is not a timezone I know'],
    ["whenever you like", 'I can\'t read "whenever you like"'],
  ])("%s is refused with one line", (text, problem) => {
    const result = parseWhen(text);
    expect(result.kind).toBe("invalid");
    if (result.kind === "invalid") {
      expect(result.problem).toContain(problem);
      expect(result.problem).not.toContain("\n");
    }
  });

  it("splits the Slack form at the first ': ', and anything else is the usage line", () => {
    expect(splitScheduleText("every day at 9:00: summarise #releases: the open ones")).toEqual({
      kind: "request",
      when: "every day at 9:00",
      what: "summarise #releases: the open ones",
    });
    expect(splitScheduleText("cron 0 9 * * 1-5 Europe/Berlin: summarise")).toMatchObject({ when: "cron 0 9 * * 1-5 Europe/Berlin" });
    expect(splitScheduleText("every day at 9:00 summarise")).toEqual({ kind: "usage" });
    expect(splitScheduleText("every day at 9:00: ")).toEqual({ kind: "usage" });
    expect(splitScheduleText("")).toEqual({ kind: "usage" });
  });
});

describe("the timezone", () => {
  const now = at("2027-01-14T12:00:00Z");
  const weekday = parsed("every weekday at 9:00");

  it("is the phrase's, else the person's, else SCHEDULE_DEFAULT_TZ", () => {
    const zones = { person: "America/New_York", configured: "Asia/Tokyo" };
    expect(resolveWhen(parsed("every weekday at 9:00 UTC"), zones, now)).toMatchObject({ when: { timeZone: "UTC" } });
    expect(resolveWhen(weekday, zones, now)).toMatchObject({ when: { timeZone: "America/New_York" } });
    expect(resolveWhen(weekday, { configured: "Asia/Tokyo" }, now)).toMatchObject({ when: { timeZone: "Asia/Tokyo" } });
    // A profile timezone that is not a usable name counts as none.
    expect(resolveWhen(weekday, { person: "Nowhere", configured: "Asia/Tokyo" }, now)).toMatchObject({ when: { timeZone: "Asia/Tokyo" } });
  });

  it("is never guessed: with none known the time is refused, suggesting (never using) the machine's", () => {
    const refused = resolveWhen(weekday, { machine: "Europe/Lisbon" }, now);
    expect(refused).toEqual({
      kind: "refused",
      text: "Which timezone? Add one to the time, like `every weekday at 9:00 Europe/Lisbon` (this machine's is Europe/Lisbon), or ask an admin to set SCHEDULE_DEFAULT_TZ.",
    });
    expect(resolveWhen(parsed("tomorrow at 8:00"), {}, now).kind).toBe("refused");
  });

  it("is not needed for a relative time, which fires exactly that long after the request", () => {
    const request = at("2027-01-14T12:00:07.250Z");
    expect(resolveWhen(parsed("in 20 minutes"), {}, request)).toEqual({
      kind: "ok",
      when: { kind: "once", at: request + 20 * 60_000, phrase: "in 20 minutes" },
    });
  });

  it("reads tomorrow and dates in the timezone, and refuses a time that passed", () => {
    const late = at("2027-01-14T23:30:00Z"); // 00:30 on the 15th in Berlin
    expect(resolveWhen(parsed("tomorrow at 8:00"), { configured: BERLIN }, late)).toMatchObject({
      when: { kind: "once", at: at("2027-01-16T07:00:00Z") },
    });
    expect(resolveWhen(parsed("on 2027-01-15 at 14:00"), { configured: BERLIN }, now)).toMatchObject({
      when: { kind: "once", at: at("2027-01-15T13:00:00Z"), timeZone: BERLIN },
    });
    expect(resolveWhen(parsed("on 2027-01-13 at 14:00"), { configured: BERLIN }, now)).toEqual({
      kind: "refused",
      text: "2027-01-13 14:00 Europe/Berlin (Wed) has passed already; pick a later time.",
    });
  });

  it("refuses a cron pattern croner does not accept, or one that never comes", () => {
    expect(resolveWhen(parsed("cron 61 9 * * *"), { configured: BERLIN }, now)).toMatchObject({
      kind: "refused",
      text: expect.stringContaining("minute"),
    });
    expect(resolveWhen(parsed("cron 0 9 30 2 *"), { configured: BERLIN }, now)).toMatchObject({
      text: expect.stringContaining("never comes"),
    });
  });

  it("names: UTC and IANA names in any case; abbreviations and offsets are not names", () => {
    expect(timeZoneName("utc")).toBe("UTC");
    expect(timeZoneName("america/new_york")).toBe("America/New_York");
    expect(timeZoneName("EST")).toBeUndefined();
    expect(timeZoneName("+01:00")).toBeUndefined();
  });
});

describe("slot arithmetic across daylight saving (Europe/Berlin, last Sundays of March and October 2027)", () => {
  it("keeps the wall-clock time: 09:00 stays 09:00, the weekday shown with it", () => {
    expect(shown(cron("0 9 * * *"), "2027-03-26T12:00:00Z", 3)).toEqual([
      "2027-03-27 09:00 Europe/Berlin (Sat)",
      "2027-03-28 09:00 Europe/Berlin (Sun)",
      "2027-03-29 09:00 Europe/Berlin (Mon)",
    ]);
    // The instants move by an hour with the clocks.
    expect(nextSlots(cron("0 9 * * *"), at("2027-03-27T12:00:00Z"), 2).map((slot) => new Date(slot).toISOString())).toEqual([
      "2027-03-28T07:00:00.000Z",
      "2027-03-29T07:00:00.000Z",
    ]);
    expect(shown(cron("0 9 * * 1-5"), "2027-10-29T12:00:00Z", 3)).toEqual([
      "2027-11-01 09:00 Europe/Berlin (Mon)",
      "2027-11-02 09:00 Europe/Berlin (Tue)",
      "2027-11-03 09:00 Europe/Berlin (Wed)",
    ]);
  });

  it("a time that does not exist that day runs once, at the next valid minute", () => {
    expect(shown(cron("30 2 * * *"), "2027-03-27T12:00:00Z", 2)).toEqual([
      "2027-03-28 03:00 Europe/Berlin (Sun)",
      "2027-03-29 02:30 Europe/Berlin (Mon)",
    ]);
    // Every 30 minutes: 02:00 and 02:30 both fall in the gap and run once, at 03:00.
    expect(shown(cron("*/30 * * * *"), "2027-03-28T00:15:00Z", 3)).toEqual([
      "2027-03-28 01:30 Europe/Berlin (Sun)",
      "2027-03-28 03:00 Europe/Berlin (Sun)",
      "2027-03-28 03:30 Europe/Berlin (Sun)",
    ]);
    // Every 2 hours: 02:00 does not exist, so that slot is 03:00, then 04:00 as always.
    expect(shown(cron("0 */2 * * *"), "2027-03-27T23:30:00Z", 3)).toEqual([
      "2027-03-28 03:00 Europe/Berlin (Sun)",
      "2027-03-28 04:00 Europe/Berlin (Sun)",
      "2027-03-28 06:00 Europe/Berlin (Sun)",
    ]);
  });

  it("a time that happens twice runs at its first occurrence only", () => {
    const slots = nextSlots(cron("30 2 * * *"), at("2027-10-30T12:00:00Z"), 2);
    expect(slots.map((slot) => new Date(slot).toISOString())).toEqual(["2027-10-31T00:30:00.000Z", "2027-11-01T01:30:00.000Z"]);
    const hourly = nextSlots(cron("0 * * * *"), at("2027-10-30T23:30:00Z"), 3).map((slot) => new Date(slot).toISOString());
    // 02:00 summer time, then 03:00 and 04:00 winter time: the second 02:00 (01:00 UTC) does not run.
    expect(hourly).toEqual(["2027-10-31T00:00:00.000Z", "2027-10-31T02:00:00.000Z", "2027-10-31T03:00:00.000Z"]);
  });

  it("agrees with croner's own timezone arithmetic wherever croner's rules are the same (fixed-time patterns)", () => {
    for (const timeZone of [BERLIN, "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata", "UTC"]) {
      for (const expression of ["30 2 * * *", "0 9 * * 1-5", "45 1 * * 0"]) {
        const reference = new Cron(expression, { timezone: timeZone, paused: true });
        // From before the spring change to after the autumn one (and Lord Howe's half-hour changes).
        let from = at("2027-03-20T00:00:00Z");
        for (let index = 0; index < 240; index++) {
          const ours = slotAfter(cron(expression, timeZone), from)!;
          expect(ours, `${expression} ${timeZone} after ${new Date(from).toISOString()}`).toBe(
            reference.nextRun(new Date(from))!.getTime(),
          );
          from = ours;
        }
      }
    }
  });

  it("finds the instant of a local time, first occurrence or the end of the gap", () => {
    expect(instantOf(Date.UTC(2027, 2, 28, 2, 30), BERLIN)).toBe(at("2027-03-28T01:00:00Z"));
    expect(instantOf(Date.UTC(2027, 9, 31, 2, 30), BERLIN)).toBe(at("2027-10-31T00:30:00Z"));
    expect(instantOf(Date.UTC(2027, 0, 18, 9, 0), BERLIN)).toBe(at("2027-01-18T08:00:00Z"));
  });

  it("measures the shortest interval over the next slots (one-shots have none)", () => {
    expect(shortestGapMs(cron("*/15 * * * *"), at("2027-01-01T00:00:00Z"))).toBe(15 * 60_000);
    expect(shortestGapMs(cron("0,5 9 * * *"), at("2027-01-01T00:00:00Z"))).toBe(5 * 60_000);
    expect(shortestGapMs({ kind: "once", at: 1, phrase: "in 1 minute" }, 0)).toBeUndefined();
  });
});

describe("slots missed while the bot was down", () => {
  const hourly = cron("0 * * * *", "UTC");
  const hour = 3_600_000;

  it("3 hours down: the latest slot runs late, the two before it are skipped, the next is in the future", () => {
    const plan = planFire(hourly, at("2027-01-18T10:00:00Z"), at("2027-01-18T12:30:00Z"), 60 * 60_000);
    expect(plan).toEqual({
      kind: "due",
      run: { slotAt: at("2027-01-18T12:00:00Z"), late: true },
      skipped: { count: 2, first: at("2027-01-18T10:00:00Z"), last: at("2027-01-18T11:00:00Z") },
      next: at("2027-01-18T13:00:00Z"),
    });
  });

  it("the latest runs only within SCHEDULE_CATCH_UP_MINUTES; older than that, everything missed is skipped", () => {
    const plan = planFire(hourly, at("2027-01-18T10:00:00Z"), at("2027-01-18T12:45:00Z"), 30 * 60_000);
    expect(plan).toMatchObject({ kind: "due", skipped: { count: 3 }, next: at("2027-01-18T13:00:00Z") });
    expect(plan).not.toHaveProperty("run");
    expect(planFire(hourly, at("2027-01-18T12:00:00Z"), at("2027-01-18T12:00:30Z"), 0)).toMatchObject({ run: { late: false } });
  });

  it("on time within a minute; a timer that woke early changes nothing; a one-shot has no next slot", () => {
    expect(planFire(hourly, at("2027-01-18T12:00:00Z"), at("2027-01-18T12:00:00.400Z"), 0)).toEqual({
      kind: "due",
      run: { slotAt: at("2027-01-18T12:00:00Z"), late: false },
      skipped: { count: 0 },
      next: at("2027-01-18T13:00:00Z"),
    });
    expect(planFire(hourly, at("2027-01-18T12:00:00Z"), at("2027-01-18T11:59:59Z"), 0)).toEqual({ kind: "early" });
    expect(planFire({ kind: "once", at: 5 * hour, phrase: "in 5 hours" }, 5 * hour, 5 * hour + 10, 0)).toEqual({
      kind: "due",
      run: { slotAt: 5 * hour, late: false },
      skipped: { count: 0 },
    });
  });

  it("a long outage of a dense schedule is counted, not walked for the slot that runs", () => {
    const everyMinute = cron("* * * * *", "UTC");
    const plan = planFire(everyMinute, at("2027-01-18T00:00:00Z"), at("2027-01-18T06:00:30Z"), 60 * 60_000);
    expect(plan).toMatchObject({ run: { slotAt: at("2027-01-18T06:00:00Z"), late: false }, skipped: { count: 360 } });
  });
});
