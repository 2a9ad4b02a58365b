// The SCHEDULE_* variables: defaults and a timezone checked at start (their ranges are checked
// with every other one's in config.test.ts); a bad value stops the start with one line naming
// the variable. The settings file's per-channel `schedules` entry is checked field by field like
// the rest of the file.
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { runSettingsFor } from "../../src/governance/channel-settings.js";
import { checkSettings } from "../../src/governance/settings-schema.js";

describe("SCHEDULE_* variables", () => {
  it("default to 15 minutes, 10 per person, 20 per channel, 60 minutes of catch-up and no timezone", () => {
    expect(loadConfig({}).schedules).toEqual({ minIntervalMinutes: 15, maxPerUser: 10, maxPerChannel: 20, catchUpMinutes: 60 });
  });

  it("take a timezone by its canonical name", () => {
    expect(loadConfig({ SCHEDULE_DEFAULT_TZ: "europe/berlin" }).schedules.defaultTimeZone).toBe("Europe/Berlin");
    expect(loadConfig({ SCHEDULE_DEFAULT_TZ: "UTC" }).schedules.defaultTimeZone).toBe("UTC");
  });

  it.each([
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
