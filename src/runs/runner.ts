// The durable runner: accepted messages become intake records and queue items; a worker runs
// each item from the store (its intake record, its last checkpoint, its paused approval), shows
// it through a presenter, and marks it done. Nothing a person was acknowledged for lives only in
// this process: the next start (or another process) takes up whatever is unfinished.
import { newRunId } from "./run-id.js";
import { IntakeUnavailableError } from "../errors.js";
import type { StoredRun } from "./approval-store.js";
import type { ReplyHandle, SubmitResult, Task } from "./service.js";
import type { EventSink, RunOutcome } from "../contracts/types.js";
import { approvalKey, conversationOf, handleApproval, replyKey, REPLY_TTL_MS } from "./approval-item.js";
import { intakeDecision, intakeIdFor, type IntakeRecord } from "./intake-store.js";
import { handleRun } from "./run-item.js";
import { createRunWork, type RunnerDeps } from "./run-work.js";
import type { ItemEnd, WorkItem } from "./work-queue.js";
import { withRetries, type RetryPolicy } from "./retry.js";
import { setTimeout as sleep } from "node:timers/promises";

export type { RunnerDeps };

export interface Runner {
  submit(task: Task, receipt: string): Promise<SubmitResult>;
  /** Runs a task that is not recorded (the console): resolves with its outcome. */
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

/** Bounds the memory of failed runs (they are rare: a store that failed mid-run); the next start takes up any forgotten one. */
const MAX_FAILED_RUNS = 10_000;

export function createRunner(deps: RunnerDeps): Runner {
  const { store, queue, presenters, clock } = deps;
  // Set at close: runs stop at their next checkpoint (the queue's own signal only says when to stop waiting for them).
  const stopping = new AbortController();
  const work = createRunWork(deps, stopping.signal);
  const { intake, bootId } = work;
  const localTasks = new Map<string, Task>();
  const itemDone = new Map<string, (ended: boolean) => void>();
  // Messages whose run failed here before it could finish, or that could not be queued: a redelivery takes them up
  // again instead of waiting for a restart.
  const failedRuns = new Set<string>();

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

  function rememberFailed(intakeId: string): void {
    if (failedRuns.size >= MAX_FAILED_RUNS) failedRuns.clear();
    failedRuns.add(intakeId);
  }

  async function handle(item: WorkItem, signal: AbortSignal): Promise<ItemEnd> {
    let ended = false;
    try {
      // The queue takes a failed item up again (with backoff); meanwhile a redelivery may take it up too.
      if (item.kind === "run")
        return await handleRun(work, localTasks, item, signal).catch((error: unknown) => {
          rememberFailed(item.intakeId);
          throw error;
        });
      const end = await handleApproval(work, item, signal);
      ended = end === "ended";
      return end === "interrupted" ? "interrupted" : "done";
    } finally {
      if (item.kind !== "run") {
        const key = approvalKey(item.runId, item.callId);
        itemDone.get(key)?.(ended);
        itemDone.delete(key);
      }
    }
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
    if (!received.won) {
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
        rememberFailed(id);
        throw new IntakeUnavailableError(receipt, error instanceof Error ? error.message : String(error));
      }
    },

    async ask(task, sink) {
      const id = newRunId();
      localTasks.set(id, task);
      const outcome = presenters.wait(id, sink);
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
      const outcome = sink ? presenters.wait(approvalKey(item.runId, item.callId), sink) : undefined;
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
      // A caller waiting here (the console) waits for the run however long its queueing takes.
      return outcome ? { queued, outcome: await outcome } : { queued };
    },

    async sweep() {
      const approvals = deps.approvals();
      const now = clock();
      const due = (await approvals.waiting()).filter((entry) => entry.expiresAt <= now);
      const ended: Promise<boolean>[] = [];
      for (const entry of due) {
        const key = approvalKey(entry.runId, entry.callId);
        ended.push(new Promise<boolean>((resolve) => itemDone.set(key, resolve)));
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
      queue.start(handle, deps.concurrency);
    },

    async recover() {
      for (const open of await intake.unfinished()) {
        await queue.add({ kind: "run", conversationKey: open.conversationKey, intakeId: open.id });
      }
      const approvals = deps.approvals();
      for (const entry of await approvals.waiting()) {
        const conversationKey = await conversationOf(approvals, entry.runId);
        // A decision claimed before a crash is applied now; the others wait for their expiry.
        const claimed = (await approvals.decisionOf(entry.runId, entry.callId)) !== undefined;
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
