// The durable runner: accepted messages become intake records and queue items (intake/submit.ts);
// a worker handles each item from the store (work-item.ts: a message's run, a paused run's
// resume or expiry) and shows it through the surfaces. Nothing a person was acknowledged for
// lives only in this process: the next start (or another process) takes up whatever is unfinished.
import { setTimeout as sleep } from "node:timers/promises";
import type { EventSink, RunOutcome } from "../../contracts/types.js";
import type { ReplyHandle } from "../api/task.js";
import type { SubmitResult, Task } from "../api/task.js";
import type { DeletionRequest, DeletionResult, EditRequest, EditResult } from "../api/edits.js";
import { takeDeletion } from "../intake/deletions.js";
import { takeEdit } from "../intake/edits.js";
import { connectionClaimOf, type StoredRun } from "../approvals/approval-store.js";
import { newRunId } from "../intake/run-id.js";
import type { IntakeRecord } from "../intake/intake-store.js";
import { createIntake } from "../intake/submit.js";
import { interruptFor } from "./interrupting.js";
import type { WorkItem } from "../queue/work-queue.js";
import { withRetries, type RetryPolicy } from "../retry.js";
import { approvalKey, conversationOf, replyKey, REPLY_TTL_MS } from "./paused-item.js";
import { createWorkContext } from "./work-context.js";
import { createWorkItems } from "./work-item.js";
import type { WorkerDeps } from "./worker-deps.js";

export interface Runner {
  submit(task: Task, receipt: string): Promise<SubmitResult>;
  /** A person edited a message (intake/edits.ts); rejects when the store or the queue fails (the platform may deliver it again). */
  edit(edit: EditRequest): Promise<EditResult>;
  /** A person deleted a message (intake/deletions.ts); an answered one's answer comes back when it is to go too. Rejects when the store fails. */
  deletion(request: DeletionRequest, deleteAnswer: boolean): Promise<DeletionResult>;
  /** Runs a task that is not recorded (`AgentService.ask`): resolves with its outcome. */
  ask(task: Task, sink: EventSink): Promise<RunOutcome>;
  /**
   * Queues the resume of a claimed decision, trying again while the queue is down; with `sink`, a
   * caller here waits for its outcome; `reply` says how to answer through the click. `queued: false`:
   * not queued yet, and still tried in the background until it is (or, after a restart, by recover).
   */
  resume(run: StoredRun, sink?: EventSink, reply?: ReplyHandle): Promise<Resumed>;
  /** Ends the due approvals (SQLite's expiry); resolves with how many runs it ended. */
  sweep(): Promise<number>;
  /** Starts the workers. */
  start(): void;
  /** Queues what an earlier process left unfinished; call once the surfaces' presenters are registered. */
  recover(): Promise<void>;
  close(graceMs: number): Promise<void>;
}

export interface Resumed {
  readonly queued: boolean;
  /** For a caller that waited (`sink`). */
  readonly outcome?: RunOutcome;
}

/** A claimed decision's resume is tried this long while the person who clicked waits (about 1.4 s)… */
const RESUME_RETRY: RetryPolicy = { attempts: 4, firstDelayMs: 200, maxDelayMs: 800 };
/** …then in the background, waiting twice as long each time up to the maximum, until it is queued or the runner closes. */
const RESUME_BACKGROUND_RETRY = { firstDelayMs: 500, maxDelayMs: 30_000 };

export function createRunner(deps: WorkerDeps): Runner {
  const { store, queue, shows, approvals, clock } = deps;
  // Set at close: runs stop at their next checkpoint (the queue's own signal only says when to stop waiting for them).
  const stopping = new AbortController();
  const work = createWorkContext(deps, stopping.signal);
  const interrupt = (record: IntakeRecord) =>
    interruptFor(deps, work, record).catch((error: unknown) =>
      deps.logger.warn({ err: error, intakeId: record.id }, "could not interrupt the conversation's run; the message is queued after it"),
    );
  const intake = createIntake({ intake: work.intake, inbox: work.inbox, queue, bootId: work.bootId, clock, interrupt });
  const items = createWorkItems(work, intake);
  /** A run whose answer showed, though its record may not say done yet (an edit or a deletion in between). */
  const answered = async (intakeId: string) => (await work.answeredBefore(intakeId)) !== undefined;

  /** Tries `add` until it succeeds or the runner closes (the next start's recover queues a claimed decision then). */
  async function keepQueueing(add: () => Promise<void>, runId: string): Promise<void> {
    for (let delay = RESUME_BACKGROUND_RETRY.firstDelayMs; ; delay = Math.min(RESUME_BACKGROUND_RETRY.maxDelayMs, delay * 2)) {
      try {
        await sleep(delay, undefined, { signal: stopping.signal });
      } catch {
        return;
      }
      try {
        await add();
        deps.logger.info({ runId }, "a decision's resume is queued now");
        return;
      } catch (error) {
        deps.logger.warn({ err: error, runId }, "still could not queue a decision's resume; trying again");
      }
    }
  }

  return {
    submit: (task, receipt) => intake.submit(task, receipt),
    edit: (edit) => takeEdit({ intake: work.intake, answered, submit: (task, receipt) => intake.submit(task, receipt) }, edit),
    async deletion(request, deleteAnswer) {
      const stopDeleted = deps.stops ? deps.stops.questionDeleted.bind(deps.stops) : undefined;
      const result = await takeDeletion(
        { intake: work.intake, inbox: work.inbox, store, answered, ...(stopDeleted ? { stopDeleted } : {}) },
        request,
      );
      if (result.kind !== "answered") return result;
      if (!deleteAnswer) return { kind: "ignored", reason: "answered; its answer stays (DELETE_ANSWERS_WITH_QUESTION)" };
      const mark = await work.answeredBefore(result.runId);
      return mark?.messageId ? { ...result, answer: { messageId: mark.messageId } } : result;
    },

    async ask(task, sink) {
      const id = newRunId();
      items.localTasks.set(id, task);
      const outcome = shows.wait(id, sink);
      await queue.add({ kind: "run", conversationKey: task.origin.conversationKey, intakeId: id });
      return outcome;
    },

    async resume(run, sink, reply) {
      const item: WorkItem = {
        kind: "resume",
        conversationKey: run.state.origin.conversationKey,
        runId: run.state.runId,
        callId: run.pending.callId,
      };
      const outcome = sink ? shows.wait(approvalKey(item.runId, item.callId), sink) : undefined;
      const add = async () => {
        if (reply) await store.set(replyKey(item.runId, item.callId), reply, REPLY_TTL_MS);
        await queue.add(item);
      };
      const retrying = (error: unknown, attempt: number) =>
        deps.logger.warn({ err: error, runId: item.runId, attempt }, "could not queue a decision's resume; trying again");
      const queued = await withRetries(add, RESUME_RETRY, retrying).then(
        () => true,
        (error: unknown) => {
          deps.logger.error(
            { err: error, runId: item.runId },
            "could not queue a decision's resume; it is recorded, and queued once the queue is back",
          );
          void keepQueueing(add, item.runId);
          return false;
        },
      );
      // A caller waiting here waits for the run however long its queueing takes.
      return outcome ? { queued, outcome: await outcome } : { queued };
    },

    async sweep() {
      const now = clock();
      const due = (await approvals.waiting()).filter((entry) => entry.expiresAt <= now);
      const ended: Promise<boolean>[] = [];
      for (const entry of due) {
        ended.push(items.awaitPaused(entry.runId, entry.callId));
        await queue.add({
          kind: "expire",
          conversationKey: await conversationOf(approvals, entry.runId),
          runId: entry.runId,
          callId: entry.callId,
        });
      }
      return (await Promise.all(ended)).filter(Boolean).length;
    },

    start() {
      queue.start(items.handle, deps.concurrency);
    },

    async recover() {
      for (const open of await work.intake.unfinished()) {
        await queue.add({ kind: "run", conversationKey: open.conversationKey, intakeId: open.id });
      }
      for (const entry of await approvals.waiting()) {
        const conversationKey = await conversationOf(approvals, entry.runId);
        // A decision claimed before a crash is applied now; the others wait for their expiry.
        const claimed =
          (await approvals.decisionOf(entry.runId, entry.callId)) !== undefined ||
          (await approvals.decisionOf(entry.runId, connectionClaimOf(entry.callId))) !== undefined;
        await queue.add(
          { kind: "expire", conversationKey, runId: entry.runId, callId: entry.callId },
          { delayMs: claimed ? 0 : Math.max(0, entry.expiresAt - clock()) },
        );
      }
    },

    close(graceMs) {
      stopping.abort();
      return queue.close(graceMs);
    },
  };
}
