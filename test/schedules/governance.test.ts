// Schedules under governance, checked at fire time, and the limits on making them: a blocked
// owner or channel, or an owner who left, pauses the schedule and tells the owner privately
// without a model call; a rate limit refuses one slot; the limits and the shortest interval
// refuse a new schedule with one line; [SILENT] posts nothing; failures in a row pause.
import { describe, expect, it } from "vitest";
import { ScriptedModel } from "../support/model-scripted.js";
import { ModelUnavailableError } from "../../src/errors.js";
import type { Settings } from "../../src/governance/settings-schema.js";
import { createAuditLog } from "../../src/governance/audit-log.js";
import { settingsOf } from "../support/governance-harness.js";
import { noteTool } from "../support/service-harness.js";
import { until } from "../support/until.js";
import { advanceTo, answers, at, auditKinds, schedule, useScheduleBots } from "../support/schedule-harness.js";
import { manualClock, slackCaller } from "../support/schedule-harness.js";

const { bot } = useScheduleBots();

describe("governance at fire time", () => {
  const blocking = (blocked: { readonly users?: readonly string[]; readonly channels?: readonly string[] }) => {
    let settings: Settings = settingsOf({});
    return {
      read: () => settings,
      block: () => {
        settings = settingsOf({ access: { block: { users: [...(blocked.users ?? [])], channels: [...(blocked.channels ?? [])] } } });
      },
    };
  };

  for (const [what, blocked] of [
    ["owner", { users: ["U1"] }],
    ["channel", { channels: ["C1"] }],
  ] as const) {
    it(`a blocked ${what} at fire time: the schedule pauses, the owner is told privately, no model call`, async () => {
      const clock = manualClock(at("2027-01-15T12:00:00Z"));
      const model = new ScriptedModel([], { whenExhausted: { text: "should not run" } });
      const settings = blocking(blocked);
      const target = await bot({ clock, model, settings: settings.read });
      const created = await schedule(target, "every day at 13:00 UTC: post the lunch menu");
      if (created.kind !== "created") throw new Error(created.reply);
      settings.block();
      await advanceTo(target, clock, "2027-01-15T13:00:00Z");
      await advanceTo(target, clock, "2027-01-16T13:00:00Z");
      expect(model.requests).toHaveLength(0);
      expect(target.shown).toHaveLength(0);
      expect(target.notices).toHaveLength(1);
      expect(target.notices[0]!.text).toMatch(
        new RegExp(
          `^Your schedule ${created.schedule.id} \\(\`every day at 13:00 UTC\`: post the lunch menu\\) is paused: the bot's settings refuse it now: .+\\. Resume it with \`resume ${created.schedule.id}\`\\.$`,
        ),
      );
      const listed = await target.schedules.run({ name: "schedules", text: "", caller: slackCaller("U1") });
      expect(listed.reply).toContain(`${created.schedule.id} · \`every day at 13:00 UTC\` · paused (the bot's settings refuse it now`);
      expect(await auditKinds(target)).toEqual(["schedule_created", "schedule_paused", "slot_refused"]);
      expect(target.counted).toEqual([{ kind: "slot", outcome: "refused", count: 1 }]);
    });
  }

  it("an owner who left (the surface says so): paused and told; resume arms the next slot again", async () => {
    const clock = manualClock(at("2027-01-15T12:00:00Z"));
    const model = new ScriptedModel([], { whenExhausted: { text: "menu posted" } });
    let gone = true;
    const target = await bot({
      clock,
      model,
      presence: async () => (gone ? { kind: "gone", reason: "its owner left the workspace" } : { kind: "present" }),
    });
    const created = await schedule(target, "every day at 13:00 UTC: post the lunch menu");
    if (created.kind !== "created") throw new Error(created.reply);
    await advanceTo(target, clock, "2027-01-15T13:00:00Z");
    expect(model.requests).toHaveLength(0);
    expect(target.notices.map((notice) => notice.text)).toEqual([expect.stringContaining("is paused: its owner left the workspace.")]);
    gone = false;
    const resumed = await target.schedules.run({ name: "resume", text: created.schedule.id, caller: slackCaller("U1") });
    expect(resumed.reply).toBe(
      `Resumed ${created.schedule.id}: next 2027-01-16 13:00 UTC (Sat), 2027-01-17 13:00 UTC (Sun), 2027-01-18 13:00 UTC (Mon). Results will be posted in this channel, each run in a thread of its own.`,
    );
    expect((await target.schedules.run({ name: "resume", text: created.schedule.id, caller: slackCaller("U1") })).reply).toBe(
      `${created.schedule.id} is active, not paused.`,
    );
    await advanceTo(target, clock, "2027-01-16T13:00:00Z", 1);
    expect(answers(target)).toEqual(["menu posted"]);
  });

  it("a rate limit refuses that slot only: the schedule stays active and the next slot runs", async () => {
    const clock = manualClock(at("2027-01-15T12:00:00Z"));
    const model = new ScriptedModel([], { whenExhausted: { text: "ok" } });
    const settings = settingsOf({ limits: { user: { runsPerMinute: 1 } } });
    const target = await bot({ clock, model, settings: () => settings });
    await schedule(target, "every day at 13:00 UTC: first");
    await schedule(target, "every day at 13:00 UTC: second");
    await advanceTo(target, clock, "2027-01-15T13:00:00Z", 1);
    expect(model.requests).toHaveLength(1);
    expect(target.notices).toHaveLength(0);
    expect(await auditKinds(target)).toEqual(["schedule_created", "schedule_created", "slot_refused"]);
    await advanceTo(target, clock, "2027-01-16T13:00:00Z", 2);
    const listed = await target.schedules.book.list(slackCaller("U1"), false);
    expect(listed.map((entry) => entry.state)).toEqual(["active", "active"]);
  });
});

describe("what a slot's run answers", () => {
  it("[SILENT] (trimmed) posts nothing and the slot is recorded silent", async () => {
    const clock = manualClock(at("2027-01-15T12:00:00Z"));
    const model = new ScriptedModel([{ text: "  [SILENT]\n" }, { text: "One incident is open." }]);
    const target = await bot({ clock, model });
    const created = await schedule(target, "every day at 13:00 UTC: report open incidents, if any");
    if (created.kind !== "created") throw new Error(created.reply);
    clock.advanceTo(at("2027-01-15T13:00:00Z"));
    await until(() => target.counted.some((entry) => entry.outcome === "silent"), "the silent slot");
    await target.settle();
    expect(model.requests).toHaveLength(1);
    expect(target.shown).toHaveLength(0);
    const audit = await createAuditLog(target.store).list({ limit: 1 });
    expect(audit[0]).toMatchObject({ kind: "slot_silent", schedule: { id: created.schedule.id, slotAt: at("2027-01-15T13:00:00Z") } });
    await advanceTo(target, clock, "2027-01-16T13:00:00Z", 1);
    expect(answers(target)).toEqual(["One incident is open."]);
  });

  it("three failed slots in a row pause a recurring schedule and tell its owner; a success in between resets the count", async () => {
    const clock = manualClock(at("2027-01-15T12:00:00Z"));
    const down = { error: new ModelUnavailableError("connection refused") };
    const model = new ScriptedModel([down, down, { text: "fine" }, down, down, down], { whenExhausted: { text: "never" } });
    const target = await bot({ clock, model });
    const created = await schedule(target, "every day at 13:00 UTC: the digest");
    if (created.kind !== "created") throw new Error(created.reply);
    for (const [day, shown] of [
      ["15", 1],
      ["16", 2],
      ["17", 3],
      ["18", 4],
      ["19", 5],
      ["20", 6],
    ] as const)
      await advanceTo(target, clock, `2027-01-${day}T13:00:00Z`, shown);
    await target.settle();
    expect(target.notices.map((notice) => notice.text)).toEqual([expect.stringContaining("is paused: its last 3 runs failed.")]);
    await advanceTo(target, clock, "2027-01-21T13:00:00Z");
    expect(model.requests).toHaveLength(6);
    expect(target.counted.filter((entry) => entry.kind === "run").map((entry) => entry.outcome)).toEqual([
      "failed",
      "failed",
      "answered",
      "failed",
      "failed",
      "failed",
    ]);
    expect(await auditKinds(target)).toEqual(["schedule_created", "schedule_paused"]);
  });
});

describe("limits on making schedules, one line each", () => {
  it("SCHEDULE_MAX_PER_USER and SCHEDULE_MAX_PER_CHANNEL count schedules not ended", async () => {
    const clock = manualClock(at("2027-01-15T12:00:00Z"));
    const target = await bot({ clock, model: new ScriptedModel([]), env: { SCHEDULE_MAX_PER_USER: "2", SCHEDULE_MAX_PER_CHANNEL: "3" } });
    expect((await schedule(target, "every day at 9:00 UTC: one")).kind).toBe("created");
    const second = await schedule(target, "every day at 10:00 UTC: two");
    expect((await schedule(target, "every day at 11:00 UTC: three")).reply).toBe(
      "You have 2 schedules already, the most allowed here (2); cancel one with `unschedule <id>` first.",
    );
    expect((await schedule(target, "every day at 11:00 UTC: three", slackCaller("U2"))).kind).toBe("created");
    expect((await schedule(target, "every day at 12:00 UTC: four", slackCaller("U3"))).reply).toBe(
      "This channel has 3 schedules already, the most allowed here (3).",
    );
    expect((await schedule(target, "every day at 12:00 UTC: four", slackCaller("U3", { channel: "C2" }))).kind).toBe("created");
    if (second.kind !== "created") throw new Error(second.reply);
    await target.schedules.run({ name: "unschedule", text: second.schedule.id, caller: slackCaller("U1") });
    expect((await schedule(target, "every day at 11:00 UTC: three")).kind).toBe("created");
  });

  it("SCHEDULE_MIN_INTERVAL_MINUTES refuses a denser recurring schedule; one-shots are exempt", async () => {
    const clock = manualClock(at("2027-01-15T12:00:00Z"));
    const target = await bot({ clock, model: new ScriptedModel([]) });
    expect((await schedule(target, "every 5 minutes UTC: poll")).reply).toBe(
      "`every 5 minutes UTC` would run every 5 minutes; the shortest interval allowed here is 15 minutes.",
    );
    expect((await schedule(target, "cron 0,10 9 * * * UTC: poll")).reply).toBe(
      "`cron 0,10 9 * * * UTC` would run every 10 minutes; the shortest interval allowed here is 15 minutes.",
    );
    expect((await schedule(target, "every 15 minutes UTC: poll")).kind).toBe("created");
    expect((await schedule(target, "in 1 minute: ping")).kind).toBe("created");
  });

  it("a channel's settings override the limits there, and can turn schedules off", async () => {
    const clock = manualClock(at("2027-01-15T12:00:00Z"));
    const settings = settingsOf({
      channels: { C1: { schedules: { minIntervalMinutes: 120, maxPerUser: 1 } }, C2: { schedules: { enabled: false } } },
    });
    const target = await bot({ clock, model: new ScriptedModel([]), settings: () => settings });
    expect((await schedule(target, "every hour UTC: poll")).reply).toBe(
      "`every hour UTC` would run every 1 hour; the shortest interval allowed here is 2 hours.",
    );
    expect((await schedule(target, "every hour UTC: poll", slackCaller("U5", { channel: "C3" }))).kind).toBe("created");
    expect((await schedule(target, "every 2 hours UTC: poll")).kind).toBe("created");
    expect((await schedule(target, "every 4 hours UTC: poll")).reply).toBe(
      "You have 1 schedule already, the most allowed here (1); cancel one with `unschedule <id>` first.",
    );
    expect((await schedule(target, "in 2 hours: ping", slackCaller("U1", { channel: "C2" }))).reply).toBe(
      "Schedules are turned off in this channel (the bot's settings).",
    );
  });

  it("bad input: no ': ' is the usage line; no timezone anywhere is refused, naming the machine's only as a suggestion", async () => {
    const clock = manualClock(at("2027-01-15T12:00:00Z"));
    const target = await bot({ clock, model: new ScriptedModel([]) });
    expect(await schedule(target, "every day at 9:00 summarise")).toEqual({
      kind: "usage",
      reply: expect.stringMatching(/^Usage: `schedule <when>: <what>`/),
    });
    expect((await schedule(target, "every day at 9:00: summarise")).reply).toBe(
      "Which timezone? Add one to the time, like `every day at 9:00 Europe/Lisbon` (this machine's is Europe/Lisbon), or ask an admin to set SCHEDULE_DEFAULT_TZ.",
    );
    expect((await schedule(target, "every day at 9am UTC: summarise")).reply).toBe(
      '"9am" is not a time on the 24-hour clock: write it like 09:00 or 17:30.',
    );
    const withDefault = await bot({ clock, model: new ScriptedModel([]), env: { SCHEDULE_DEFAULT_TZ: "asia/tokyo" } });
    expect((await schedule(withDefault, "every day at 9:00: summarise")).reply).toContain("2027-01-16 09:00 Asia/Tokyo (Sat)");
    const withProfile = await bot({ clock, model: new ScriptedModel([]), timeZoneOf: async () => "America/New_York" });
    expect((await schedule(withProfile, "every day at 9:00: summarise")).reply).toContain("2027-01-16 09:00 America/New_York (Sat)");
  });
});

describe("listing", () => {
  it("lists the caller's own; an admin sees everyone's with owner and channel", async () => {
    const clock = manualClock(at("2027-01-15T12:00:00Z"));
    const target = await bot({ clock, model: new ScriptedModel([]) });
    const mine = await schedule(target, "every day at 9:00 UTC: the digest");
    const theirs = await schedule(
      target,
      "every monday at 10:30 Europe/Berlin: the weekly",
      slackCaller("U2", { name: "Bo", channel: "C7" }),
    );
    if (mine.kind !== "created" || theirs.kind !== "created") throw new Error("not created");
    expect((await target.schedules.run({ name: "schedules", text: "", caller: slackCaller("U1") })).reply).toBe(
      `Your 1 schedule:\n• ${mine.schedule.id} · \`every day at 9:00 UTC\` · active · next 2027-01-16 09:00 UTC (Sat) · the digest`,
    );
    expect((await target.schedules.run({ name: "schedules", text: "", caller: slackCaller("U9", { isAdmin: true }) })).reply).toBe(
      [
        "All 2 schedules:",
        `• ${mine.schedule.id} · \`every day at 9:00 UTC\` · active · next 2027-01-16 09:00 UTC (Sat) · owner Ana · channel C1 · the digest`,
        `• ${theirs.schedule.id} · \`every monday at 10:30 Europe/Berlin\` · active · next 2027-01-18 10:30 Europe/Berlin (Mon) · owner Bo · channel C7 · the weekly`,
      ].join("\n"),
    );
  });
});

describe("writes in a slot's run", () => {
  it("wait for the owner's approval like any write; someone else's click is refused", async () => {
    const clock = manualClock(at("2027-01-15T12:00:00Z"));
    const model = new ScriptedModel([
      { calls: [{ name: "post_note", args: { text: "standup moved" }, id: "w1" }] },
      { text: "Posted the note." },
    ]);
    const notes = noteTool();
    const target = await bot({ clock, model, surfaceTools: [notes.tool] });
    await schedule(target, "every day at 13:00 UTC: tell the channel the standup moved");
    await advanceTo(target, clock, "2027-01-15T13:00:00Z", 1);
    const paused = target.shown[0]!.outcome;
    if (paused.status !== "paused") throw new Error("expected a pause for approval");
    expect(paused.pending).toMatchObject({ tool: "post_note", requester: { id: "U1" } });
    expect(notes.posted).toEqual([]);
    const decision = { runId: paused.runId, callId: "w1", decision: "approve" as const };
    expect(await target.service.decide({ ...decision, decidedBy: { id: "U2" } }, () => {})).toEqual({
      kind: "not_allowed",
      requester: { id: "U1", name: "Ana" },
    });
    expect(notes.posted).toEqual([]);
    await target.service.decide({ ...decision, decidedBy: { id: "U1" } }, () => {});
    await until(() => target.shown.length === 2, "the answer after the owner's approval");
    await target.settle();
    expect(notes.posted).toEqual(["standup moved"]);
    expect(answers(target)).toEqual(["(paused)", "Posted the note."]);
    expect(target.counted.filter((entry) => entry.kind === "run")).toEqual([{ kind: "run", outcome: "answered", count: 1 }]);
  });
});

describe("a schedule stored before origins carried their scope", () => {
  it("is governed by its channel at fire time: the Slack codec gives it its scope as it loads", async () => {
    const clock = manualClock(at("2027-01-15T12:00:00Z"));
    const model = new ScriptedModel([], { whenExhausted: { text: "should not run" } });
    let settings: Settings = settingsOf({});
    const target = await bot({ clock, model, settings: () => settings });
    const created = await schedule(target, "every day at 13:00 UTC: post the lunch menu");
    if (created.kind !== "created") throw new Error(created.reply);
    // As the version before the surface core stored it: the place only, no scope.
    const key = `schedule:${created.schedule.id}`;
    const stored = (await target.store.get(key)) as { origin: Record<string, unknown> };
    const { scope: _scope, ...origin } = stored.origin;
    await target.store.set(key, { ...stored, origin });
    settings = settingsOf({ access: { block: { channels: ["C1"] } } });
    await advanceTo(target, clock, "2027-01-15T13:00:00Z");
    expect(model.requests).toHaveLength(0);
    expect(target.notices).toHaveLength(1);
    expect(await auditKinds(target)).toEqual(["schedule_created", "schedule_paused", "slot_refused"]);
  });
});
