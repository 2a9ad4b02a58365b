// How a slot's run ended, seen by whichever process drove it (a run observer): a `[SILENT]`
// answer is recorded silent; a run that failed, or that a guard stopped, counts towards the
// schedule's failure streak, and three in a row pause a recurring schedule and tell its owner
// privately; any other answer ends the streak.
import type { RunOutcome, TaskOrigin } from "../contracts/types.js";
import type { Logger } from "../logger.js";
import type { RunObserver } from "../runs/worker/run-observer.js";
import type { ScheduleAudit } from "./schedule-audit.js";
import type { ScheduleBook } from "./schedule-book.js";
import type { ScheduleStore } from "./schedule-store.js";
import { isSilentAnswer, pausedNotice } from "./schedule-text.js";
import type { ScheduleSurfacePorts, SlotMetrics, SlotRunEnd } from "./ports.js";
import { chainSettled } from "../settled-chain.js";
import { RunInterruptedError } from "../errors.js";

/** Failed slots in a row that pause a recurring schedule. */
export const FAILURES_TO_PAUSE = 3;

export interface SlotOutcomes extends RunObserver {
  /** Resolves when the bookkeeping of every run seen so far is done (tests, shutdown). */
  settled(): Promise<void>;
}

/** Pure: what a slot's outcome counts as; undefined while it waits for an approval. */
export function slotRunEnd(outcome: RunOutcome): SlotRunEnd | undefined {
  if (outcome.status === "paused") return undefined;
  if (isSilentAnswer(outcome.answer)) return "silent";
  // A person pressing Stop is a choice, not a failure.
  return outcome.stop && outcome.stop.guard !== "stopped" ? "failed" : "answered";
}

export function createSlotOutcomes(deps: {
  readonly store: ScheduleStore;
  readonly book: ScheduleBook;
  readonly audit: ScheduleAudit;
  readonly metrics: SlotMetrics;
  readonly logger: Logger;
  readonly portsOf: (origin: TaskOrigin) => ScheduleSurfacePorts;
}): SlotOutcomes {
  const { store, book, audit, metrics, logger } = deps;
  let tail: Promise<void> = Promise.resolve();

  async function ended(runId: string, origin: TaskOrigin, end: SlotRunEnd): Promise<void> {
    const slot = origin.schedule!;
    metrics.runEnded(end);
    let streak = 0;
    const stored = await store.update(slot.scheduleId, (record) => {
      streak = end === "failed" ? record.failureStreak + 1 : 0;
      return streak === record.failureStreak ? undefined : { ...record, failureStreak: streak };
    });
    if (!stored) return;
    if (end === "silent") audit.record("slot_silent", stored, { runId, slotAt: slot.slotAt, firedAt: slot.firedAt });
    if (end !== "failed" || streak < FAILURES_TO_PAUSE || stored.when.kind === "once") return;
    const reason = `its last ${streak} runs failed`;
    const paused = await book.pauseForBot(stored.id, reason);
    const notify = deps.portsOf(stored.origin).notifyOwner;
    if (paused && notify) await notify(paused, pausedNotice(paused, reason));
    else if (paused) logger.warn({ scheduleId: stored.id, reason }, "a schedule paused; no surface here to tell its owner");
  }

  const later = (runId: string, origin: TaskOrigin, end: SlotRunEnd): void => {
    tail = tail.then(() =>
      ended(runId, origin, end).catch((error: unknown) =>
        logger.warn({ err: error, scheduleId: origin.schedule?.scheduleId }, "could not record how a scheduled run ended"),
      ),
    );
  };

  return {
    event(event, origin) {
      if (event.type !== "final" || !origin.schedule) return;
      const end = slotRunEnd(event.outcome);
      if (end) later(event.runId, origin, end);
    },
    runFailed(runId, origin, error) {
      // Stopped for a shutdown: the next start continues it from its checkpoint.
      if (origin.schedule && !(error instanceof RunInterruptedError)) later(runId, origin, "failed");
    },
    settled: () => chainSettled(() => tail),
  };
}
