// Firing a schedule's armed slot. The slot becomes a task submitted like a chat message, with
// the slot's own receipt (schedule id + slot time): the intake record makes it run once,
// whoever fires it and however often (two processes, a restart, a redelivered timer job).
// Governance is asked now, at fire time, as the owner in the schedule's channel: a blocked
// owner or channel, or an owner who left, pauses the schedule and tells the owner privately;
// a limit refuses this slot only. Then the schedule moves on to its next slot.
import type { TaskOrigin } from "../contracts/types.js";
import type { ScheduleConfig } from "../config.js";
import { scopeOf } from "../governance/access.js";
import type { RunPolicy } from "../governance/run-policy.js";
import type { Logger } from "../logger.js";
import type { SubmitResult, Task } from "../runs/api/task.js";
import { planFire } from "./fire-plan.js";
import type { ScheduleAudit } from "./schedule-audit.js";
import type { ScheduleBook } from "./schedule-book.js";
import { limitsHere } from "./schedule-limits.js";
import type { ScheduleRecord } from "./schedule-record.js";
import type { ScheduleStore } from "./schedule-store.js";
import { pausedNotice, slotTaskText } from "./schedule-text.js";
import type { Presence, ScheduleSurfacePorts, SlotMetrics, SlotTimer } from "./ports.js";

export interface SlotFiringDeps {
  readonly store: ScheduleStore;
  readonly book: ScheduleBook;
  readonly timer: SlotTimer;
  readonly config: ScheduleConfig;
  readonly audit: ScheduleAudit;
  readonly metrics: SlotMetrics;
  readonly logger: Logger;
  readonly clock: () => number;
  readonly policy?: Pick<RunPolicy, "admit" | "runSettings">;
  readonly portsOf: (origin: TaskOrigin) => ScheduleSurfacePorts;
  /** The runner's intake (AgentService.submit). */
  readonly submit: (task: Task, receipt: string) => Promise<SubmitResult>;
}

/** The intake receipt of one slot: the same slot always gets the same record. */
export const slotReceipt = (scheduleId: string, slotAt: number) => `schedule:${scheduleId}:${slotAt}`;

/** Where a slot's run happens: as the owner, in the schedule's channel; a thread per slot is a conversation of its own. */
export function slotOrigin(
  schedule: ScheduleRecord,
  slot: { slotAt: number; late: boolean; skipped: number },
  firedAt: number,
): TaskOrigin {
  const { origin } = schedule;
  return {
    ...origin,
    requester: schedule.owner,
    conversationKey:
      schedule.thread === "origin" ? origin.conversationKey : `${origin.conversationKey}:schedule:${schedule.id}:${slot.slotAt}`,
    schedule: {
      scheduleId: schedule.id,
      slotAt: slot.slotAt,
      firedAt,
      late: slot.late,
      thread: schedule.thread,
      ...(slot.skipped > 0 ? { skipped: slot.skipped } : {}),
      ...(schedule.when.timeZone ? { timeZone: schedule.when.timeZone } : {}),
    },
  };
}

type SlotRun = "submitted" | "refused" | "paused";

export function createSlotFiring(deps: SlotFiringDeps): (id: string, at: number) => Promise<void> {
  const { store, book, timer, config, audit, metrics, logger, clock, policy } = deps;

  async function pause(schedule: ScheduleRecord, reason: string): Promise<void> {
    const paused = await book.pauseForBot(schedule.id, reason);
    if (!paused) return;
    const notify = deps.portsOf(schedule.origin).notifyOwner;
    if (!notify)
      return void logger.warn(
        { scheduleId: schedule.id, owner: schedule.owner.id, reason },
        "a schedule paused; no surface here to tell its owner",
      );
    await notify(paused, pausedNotice(paused, reason)).catch((error: unknown) =>
      logger.warn({ err: error, scheduleId: schedule.id }, "could not tell a schedule's owner it paused"),
    );
  }

  const presenceOf = async (schedule: ScheduleRecord): Promise<Presence> =>
    (await deps
      .portsOf(schedule.origin)
      .presence?.(schedule)
      .catch(() => undefined)) ?? { kind: "present" };

  async function runSlot(schedule: ScheduleRecord, origin: TaskOrigin, slotAt: number): Promise<SlotRun> {
    const firedAt = origin.schedule!.firedAt;
    const refused = (reason: string): SlotRun => {
      audit.record("slot_refused", schedule, { slotAt, firedAt, reason });
      metrics.slot("refused");
      return "refused";
    };
    if (!limitsHere(config, policy?.runSettings(origin).schedules).enabled) return refused("schedules are turned off in this channel");
    const presence = await presenceOf(schedule);
    if (presence.kind === "gone") {
      await pause(schedule, presence.reason);
      refused(presence.reason);
      return "paused";
    }
    const receipt = slotReceipt(schedule.id, slotAt);
    // As the owner is now: their roles where the platform told them (Discord), at fire time.
    const asOwner: TaskOrigin = { ...origin, scope: { ...scopeOf(origin), roles: presence.roles ?? [] } };
    const admission = policy ? await policy.admit(asOwner, receipt) : { kind: "admitted" as const };
    if (admission.kind === "refused") {
      // Access (blocked owner or channel) will refuse every later slot too: pause. A limit resets: only this slot is refused.
      if (admission.refusal.kind !== "access") return refused(admission.text);
      if (!admission.repeat) await pause(schedule, `the bot's settings refuse it now: ${admission.text.replace(/\.$/, "")}`);
      refused(admission.text);
      return "paused";
    }
    await deps.submit({ origin, text: slotTaskText(schedule, slotAt), admitted: true }, receipt);
    metrics.slot(origin.schedule!.late ? "late" : "on_time");
    if (origin.schedule!.late) audit.record("slot_late", schedule, { slotAt, firedAt, skipped: origin.schedule!.skipped });
    return "submitted";
  }

  return async function fire(id, at) {
    const loaded = await store.load(id);
    if (loaded.kind !== "found") {
      if (loaded.kind === "invalid")
        logger.error({ scheduleId: id, reason: loaded.reason }, "a stored schedule can't be read; its slot is dropped");
      return store.forgetArmed(id, at);
    }
    const schedule = loaded.record;
    const armed = schedule.nextSlot;
    if (schedule.state !== "active" || armed === undefined) return store.forgetArmed(id, at);
    // An older slot's timer (a redelivery, a second process, a crash's leftover): the schedule moved on, so keep its current slot armed.
    if (at < armed) {
      await store.forgetArmed(id, at);
      return timer.arm(id, armed);
    }
    const now = clock();
    const plan = planFire(schedule.when, armed, now, config.catchUpMinutes * 60_000);
    if (plan.kind === "early") return timer.arm(id, armed);
    let ran: SlotRun | undefined;
    if (plan.run) {
      const origin = slotOrigin(schedule, { ...plan.run, skipped: plan.skipped.count }, now);
      ran = await runSlot(schedule, origin, plan.run.slotAt);
    }
    if (plan.skipped.count > 0) {
      audit.record("slot_skipped", schedule, {
        slotAt: plan.skipped.last!,
        firedAt: now,
        skipped: plan.skipped.count,
        reason: plan.run
          ? "missed while the bot was down; only the latest missed slot runs"
          : `missed while the bot was down, longer ago than SCHEDULE_CATCH_UP_MINUTES (${config.catchUpMinutes})`,
      });
      metrics.slot("skipped", plan.skipped.count);
    }
    if (ran === "paused") return;
    // Armed before the schedule moves on: a crash in between leaves this slot's timer to fire again (a no-op for
    // the intake) and the next one armed, never an active schedule with no slot armed.
    if (plan.next !== undefined) await timer.arm(id, plan.next);
    let ends = false;
    const moved = await store.update(id, (current) => {
      // Cancelled, paused or fired by someone else meanwhile: theirs is the newer word.
      if (current.state !== "active" || current.nextSlot !== armed) return undefined;
      ends = plan.next === undefined;
      return {
        ...current,
        ...(plan.run ? { lastSlot: plan.run.slotAt } : {}),
        nextSlot: plan.next,
        skippedSlots: current.skippedSlots + plan.skipped.count,
        changedAt: now,
        ...(ends ? { state: "ended" as const, reason: plan.run ? "ran its last slot" : "its last slot was missed" } : {}),
      };
    });
    if (moved && ends) audit.record("schedule_changed", moved, { reason: `ended: ${moved.reason}` });
  };
}
