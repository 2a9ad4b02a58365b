// Taking a chat message in: the record is written first (it is the dedupe: a platform's
// redelivery finds it), then its run is queued. A redelivery of a message done or in progress
// here is not run again; one whose process died before finishing it, or that failed here, is
// queued again. The caller (the platform's ack) gets an answer it can act on, or a rejection
// that makes the platform deliver again.
import { IntakeUnavailableError } from "../../errors.js";
import type { SubmitResult, Task } from "../api/task.js";
import type { WorkQueue } from "../queue/work-queue.js";
import type { Inbox } from "./inbox.js";
import { intakeDecision, intakeIdFor, type IntakeRecord, type IntakeStore } from "./intake-store.js";

/** Bounds the memory of failed runs (they are rare: a store that failed mid-run); the next start takes up any forgotten one. */
const MAX_FAILED_RUNS = 10_000;

export interface Intake {
  /** Records the message under its platform receipt and queues its run; rejects with IntakeUnavailableError when the store or the queue fails. */
  submit(task: Task, receipt: string): Promise<SubmitResult>;
  /** A message whose run failed here before it could finish: a redelivery takes it up again instead of waiting for a restart. */
  failed(intakeId: string): void;
}

export function createIntake(deps: {
  readonly intake: IntakeStore;
  readonly inbox: Inbox;
  readonly queue: WorkQueue;
  /** Stops the conversation's run in flight for this new message when the policy says so (worker/interrupting.ts). */
  readonly interrupt?: (record: IntakeRecord) => Promise<unknown>;
  /** This process's id in intake records. */
  readonly bootId: string;
  readonly clock: () => number;
}): Intake {
  const { intake, inbox, queue, bootId, clock } = deps;
  const failedRuns = new Set<string>();

  function failed(intakeId: string): void {
    if (failedRuns.size >= MAX_FAILED_RUNS) failedRuns.clear();
    failedRuns.add(intakeId);
  }

  /** Records the message (the record is the dedupe) and queues its run; rejects when the store or the queue fails. */
  async function take(task: Task, id: string): Promise<SubmitResult> {
    const record: IntakeRecord = {
      version: 1,
      id,
      state: "received",
      owner: bootId,
      task: task as IntakeRecord["task"],
      receivedAt: clock(),
    };
    const received = await intake.receive(record);
    if (received.won) {
      // Listed for a run of the conversation to take up (a burst, a steer); one not listed runs on its own.
      await inbox.add(task.origin.conversationKey, id, record.receivedAt);
      await deps.interrupt?.(record);
    } else {
      const existing = received.existing.kind === "found" ? received.existing.record : undefined;
      const decision = intakeDecision(existing, bootId);
      if (decision === "done" || (decision === "in_progress" && !failedRuns.delete(id)))
        return { kind: "duplicate", intakeId: id, state: decision };
      // Its process died before finishing it, or (several processes on Redis) another one has it queued: queue it
      // again. The record is not rewritten here: a run that finished meanwhile would turn unfinished and run twice.
      // The item that runs takes the record over, and one whose record is done by then does nothing.
    }
    await queue.add({ kind: "run", conversationKey: task.origin.conversationKey, intakeId: id });
    return { kind: "accepted", intakeId: id };
  }

  return {
    async submit(task, receipt) {
      const id = intakeIdFor(task.origin.surface, receipt);
      try {
        return await take(task, id);
      } catch (error) {
        // The record may be written and not queued: the redelivery must queue it, not take it for one in progress here.
        failed(id);
        throw new IntakeUnavailableError(receipt, error instanceof Error ? error.message : String(error));
      }
    },
    failed,
  };
}
