// A workspace that removed the bot: its schedules end (no slot fires there again), another
// workspace's keep going, and the audit keeps one line of the removal. Its data's deletion is
// booked after the retention, and once more when a run in progress at the removal has ended, if
// that is later (what such a run writes as it ends would otherwise outlive the deletion).
import { describe, expect, it } from "vitest";
import { ScriptedModel } from "../../support/model-scripted.js";
import { silentLogger } from "../../../src/logger.js";
import { createLocalSlotTimer } from "../../../src/schedules/local-slot-timer.js";
import { erasureTimes, removeWorkspace } from "../../../src/adapters/core/workspace-removal.js";
import type { BookedErasure } from "../../../src/adapters/core/workspace-erasures.js";
import type { AuditDraft } from "../../../src/governance/audit-log.js";
import { spotOf } from "../../../src/adapters/core/inbound.js";
import { conversationAt } from "../../../src/adapters/slack/slack-place.js";
import { advanceTo, answers, at, manualClock, schedule, useScheduleBots } from "../../support/schedule-harness.js";
import type { ScheduleCaller } from "../../../src/schedules/schedule-book.js";

const { bot } = useScheduleBots();

const callerIn = (team: string, user: string): ScheduleCaller => ({
  person: { id: user },
  origin: spotOf("slack", conversationAt({ team, channel: "C1", traceThreadTs: "1700000000.000100", replyThreadTs: "1700000000.000100" }), {
    id: user,
    roles: [],
  }).origin,
  isAdmin: false,
});

describe("removing a workspace", () => {
  it("ends its schedules and audits one line; another workspace's schedules still fire", async () => {
    const clock = manualClock(at("2027-01-15T12:00:00Z"));
    const model = new ScriptedModel([], { whenExhausted: { text: "daily note" } });
    const target = await bot({ clock, model, timer: createLocalSlotTimer(silentLogger, clock) });
    const gone = await schedule(target, "every day at 9:00 UTC: say hi", callerIn("T0GONE", "U1"));
    const kept = await schedule(target, "every day at 9:00 UTC: say hi", callerIn("T0KEPT", "U2"));
    if (gone.kind !== "created" || kept.kind !== "created") throw new Error("not scheduled");

    await removeWorkspace(
      { audit: target.policy.audit, schedules: target.schedules.book, logger: silentLogger },
      { surface: "slack", workspace: "T0GONE", key: "T:T0GONE", reason: "app_uninstalled" },
    );

    await advanceTo(target, clock, "2027-01-16T09:00:00Z", 1);
    expect(answers(target)).toEqual(["daily note"]);
    expect(target.shown.map((entry) => entry.origin.scope?.workspace)).toEqual(["T0KEPT"]);
    const open = await target.schedules.book.list(callerIn("T0GONE", "U1"), false);
    expect(open.map((record) => record.id)).not.toContain(gone.schedule.id);
    const removals = (await target.policy.audit.list({})).filter((entry) => entry.kind === "workspace_removed");
    expect(removals).toEqual([
      expect.objectContaining({ runId: "T:T0GONE", surface: "slack", reason: "app_uninstalled; 1 schedule ended" }),
    ]);
  });

  it("books the deletion after the retention, and before it the one after the runs in progress when that is later", () => {
    const minutes = (count: number) => count * 60_000;
    expect(erasureTimes(1_000, 0, minutes(7))).toEqual([1_000 + minutes(7), 1_000]);
    expect(erasureTimes(1_000, minutes(3), minutes(7))).toEqual([1_000 + minutes(7), 1_000 + minutes(3)]);
    expect(erasureTimes(1_000, minutes(30 * 24 * 60), minutes(7))).toEqual([1_000 + minutes(30 * 24 * 60)]);
    expect(erasureTimes(1_000, minutes(7), minutes(7))).toEqual([1_000 + minutes(7)]);
  });

  it("books both for each workspace of an org, under the install's key", async () => {
    const booked: BookedErasure[] = [];
    const audited: AuditDraft[] = [];
    await removeWorkspace(
      {
        audit: {
          append: async (draft) => {
            audited.push(draft);
            return { ...draft, seq: audited.length, at: 5_000, process: { pid: 1, hostname: "test" } };
          },
        },
        erasures: { book: async (erasure) => void booked.push(erasure), bringForward: async () => {} },
        retentionMs: 0,
        runsEndWithinMs: 420_000,
        clock: () => 5_000,
        logger: silentLogger,
      },
      { surface: "slack", workspace: "E0ORG", workspaces: ["T0ONE", "T0TWO"], key: "E:E0ORG", reason: "app_uninstalled" },
    );
    expect(booked).toEqual([
      { surface: "slack", workspace: "T0ONE", dueAt: 425_000, key: "E:E0ORG" },
      { surface: "slack", workspace: "T0TWO", dueAt: 425_000, key: "E:E0ORG" },
      { surface: "slack", workspace: "T0ONE", dueAt: 5_000, key: "E:E0ORG" },
      { surface: "slack", workspace: "T0TWO", dueAt: 5_000, key: "E:E0ORG" },
    ]);
    expect(audited).toEqual([expect.objectContaining({ kind: "workspace_removed", reason: "app_uninstalled; 0 schedules ended" })]);
  });
});
