// The SCHEDULE_* variables: defaults, ranges, and a timezone checked at start; a bad value
// stops the start with one line naming the variable. The settings file's per-channel
// `schedules` entry is checked field by field like the rest of the file.
import { describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.js";
import { runSettingsFor } from "../src/governance/channel-settings.js";
import { checkSettings } from "../src/governance/settings-schema.js";

describe("SCHEDULE_* variables", () => {
  it("default to 15 minutes, 10 per person, 20 per channel, 60 minutes of catch-up and no timezone", () => {
    expect(loadConfig({}).schedules).toEqual({ minIntervalMinutes: 15, maxPerUser: 10, maxPerChannel: 20, catchUpMinutes: 60 });
  });

  it("take values within their ranges, and a timezone by its canonical name", () => {
    const config = loadConfig({
      SCHEDULE_MIN_INTERVAL_MINUTES: "1",
      SCHEDULE_MAX_PER_USER: "1000",
      SCHEDULE_MAX_PER_CHANNEL: "10000",
      SCHEDULE_CATCH_UP_MINUTES: "0",
      SCHEDULE_DEFAULT_TZ: "europe/berlin",
    });
    expect(config.schedules).toEqual({
      minIntervalMinutes: 1,
      maxPerUser: 1000,
      maxPerChannel: 10000,
      catchUpMinutes: 0,
      defaultTimeZone: "Europe/Berlin",
    });
  });

  it.each([
    ["SCHEDULE_MIN_INTERVAL_MINUTES", "0", 'SCHEDULE_MIN_INTERVAL_MINUTES: expects a whole number from 1 to 1440 (got "0")'],
    ["SCHEDULE_MIN_INTERVAL_MINUTES", "1441", 'SCHEDULE_MIN_INTERVAL_MINUTES: expects a whole number from 1 to 1440 (got "1441")'],
    ["SCHEDULE_MAX_PER_USER", "1001", 'SCHEDULE_MAX_PER_USER: expects a whole number from 1 to 1000 (got "1001")'],
    ["SCHEDULE_MAX_PER_CHANNEL", "ten", 'SCHEDULE_MAX_PER_CHANNEL: expects a whole number from 1 to 10000 (got "ten")'],
    ["SCHEDULE_CATCH_UP_MINUTES", "-1", 'SCHEDULE_CATCH_UP_MINUTES: expects a whole number from 0 to 1440 (got "-1")'],
    [
      "SCHEDULE_DEFAULT_TZ",
      "CET",
      'SCHEDULE_DEFAULT_TZ: expects an IANA timezone like Europe/Berlin or America/New_York, or UTC (got "CET")',
    ],
    [
      "SCHEDULE_DEFAULT_TZ",
      "Mars/Olympus",
      'SCHEDULE_DEFAULT_TZ: expects an IANA timezone like Europe/Berlin or America/New_York, or UTC (got "Mars/Olympus")',
    ],
  ])("%s=%s stops the start with one line", (variable, value, message) => {
    expect(() => loadConfig({ [variable]: value })).toThrow(message);
  });
});

describe("the settings file's `schedules` per channel", () => {
  it("overrides field by field, the channel's entry over `default`", () => {
    const check = checkSettings({
      channels: {
        default: { schedules: { maxPerUser: 2, minIntervalMinutes: 30 } },
        C1: { schedules: { minIntervalMinutes: 60, enabled: true } },
      },
    });
    if (check.kind !== "ok") throw new Error(check.problems.join("; "));
    expect(runSettingsFor(check.settings, { channel: "C1" }).schedules).toEqual({ maxPerUser: 2, minIntervalMinutes: 60, enabled: true });
    expect(runSettingsFor(check.settings, { channel: "C2" }).schedules).toEqual({ maxPerUser: 2, minIntervalMinutes: 30 });
  });

  it("reports each bad field as one line naming it", () => {
    const check = checkSettings({
      channels: { C1: { schedules: { maxPerUser: 0, minIntervalMinutes: 1441, maxPerChannel: 20000, enabled: "yes", often: 1 } } },
    });
    expect(check).toEqual({
      kind: "invalid",
      problems: [
        "channels.C1.schedules.enabled: expects true or false",
        "channels.C1.schedules.maxPerUser: expects a number above 0",
        "channels.C1.schedules.maxPerChannel: expects at most 10000",
        "channels.C1.schedules.minIntervalMinutes: expects at most 1440",
        'channels.C1.schedules: unknown field "often"',
      ],
    });
  });
});
