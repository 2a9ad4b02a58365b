// Stored data across this change: records written before schedules existed still load (the
// fixtures were written by the previous version's own code), a slot's run keeps its schedule
// through the intake record, and stored schedules are checked before they are trusted.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createAuditLog } from "../../src/governance/audit-log.js";
import { runSettingsFor } from "../../src/governance/channel-settings.js";
import { readSettingsFile } from "../../src/governance/settings-file.js";
import { createIntakeStore } from "../../src/runs/intake/intake-store.js";
import { createScheduleStore } from "../../src/schedules/schedule-store.js";
import { mapStore } from "../support/map-store.js";
import { fixturePath } from "../support/repo-paths.js";

const fixture = (name: string) => fixturePath("before-schedules", name);
const json = (name: string): unknown => JSON.parse(readFileSync(fixture(name), "utf8"));

describe("data stored before schedules", () => {
  it("an intake record loads, its origin without a schedule", async () => {
    const store = mapStore();
    await store.set("intake:abcdefghijklmnopqrstuvwx", json("intake-record.json"));
    const loaded = await createIntakeStore(store).load("abcdefghijklmnopqrstuvwx");
    expect(loaded).toMatchObject({ kind: "found", record: { task: { text: "what is 6*7?", origin: { place: { channel: "C1" } } } } });
    if (loaded.kind === "found") expect(loaded.record.task.origin.schedule).toBeUndefined();
  });

  it("an audit entry lists, without schedule details", async () => {
    const store = mapStore();
    await store.set("audit:seq", 1);
    await store.set("audit:entry:1", json("audit-entry.json"));
    const [entry] = await createAuditLog(store).list({});
    expect(entry).toMatchObject({ kind: "approval_decided", decidedBy: { id: "U1" } });
    expect(entry!.schedule).toBeUndefined();
  });

  it("a settings file without `schedules` reads, and its channels leave the SCHEDULE_* variables in force", async () => {
    const read = await readSettingsFile(fixture("bot.settings.json"));
    expect(read.kind).toBe("ok");
    if (read.kind === "ok") expect(runSettingsFor(read.settings, { channel: "C0SUPPORT" }).schedules).toEqual({});
  });
});

describe("a slot's run in the store", () => {
  it("keeps its schedule through the intake record, so the worker that runs it (any process, after a restart) knows it", async () => {
    const store = mapStore();
    const record = json("intake-record.json") as { task: { origin: Record<string, unknown> } };
    const schedule = { scheduleId: "sch_ab12cd34", slotAt: 1, firedAt: 2, late: false, thread: "per_slot", timeZone: "UTC" };
    record.task.origin.schedule = schedule;
    await store.set("intake:abcdefghijklmnopqrstuvwx", record);
    const loaded = await createIntakeStore(store).load("abcdefghijklmnopqrstuvwx");
    expect(loaded).toMatchObject({ kind: "found", record: { task: { origin: { schedule } } } });
  });

  it("a damaged schedule record is reported, never trusted; a listed id without a record is skipped", async () => {
    const store = mapStore();
    await store.set("schedule:sch_ab12cd34", { version: 1, id: "sch_ab12cd34", state: "active" });
    await store.addToSet("schedules:open", "sch_ab12cd34");
    await store.addToSet("schedules:open", "sch_gone0000");
    const schedules = createScheduleStore(store);
    expect(await schedules.load("sch_ab12cd34")).toEqual({ kind: "invalid", reason: "the stored schedule failed validation" });
    expect(await schedules.open()).toEqual([]);
  });
});
