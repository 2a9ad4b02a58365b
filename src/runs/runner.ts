// The durable runner: accepted messages become intake records and queue items; a worker runs
// each item from the store (its intake record, its last checkpoint, its paused approval), shows
// it through a presenter, and marks it done. Nothing a person was acknowledged for lives only in
// this process: the next start (or another process) takes up whatever is unfinished.
import { randomBytes } from "node:crypto";
import { z } from "zod";
import type { ApprovalStore, StoredRun } from "../agent/approval-store.js";
import { continueAgent, resumeAgent, runAgent, RunInterruptedError, type LoopDeps, type LoopResult, type Resolution } from "../agent/loop.js";
import type { RunState } from "../agent/run-state.js";
import type { RunPresenter, SubmitResult, Task } from "../agent/service.js";
import type { ChatMessage, EventSink, PendingApproval, RunOutcome, Surface, TaskOrigin } from "../agent/types.js";
import type { Logger } from "../logger.js";
import type { KeyValueStore } from "../memory/types.js";
import { createCheckpointStore, type CheckpointLoad, type CheckpointWriter } from "./checkpoint-store.js";
import { createIntakeStore, intakeDecision, intakeIdFor, type IntakeRecord } from "./intake-store.js";
import type { Presenters } from "./presenters.js";
import { observeRun, type RunObserver } from "./run-observer.js";
import type { RunStops } from "./run-stops.js";
import type { WorkItem, WorkQueue } from "./work-queue.js";
import { knownCallIds, unknownOutcomeNote, type WriteLedger } from "./write-ledger.js";

export interface RunnerDeps {
  readonly store: KeyValueStore;
  readonly queue: WorkQueue;
  readonly concurrency: number;
  readonly presenters: Presenters;
  readonly approvals: () => ApprovalStore;
  readonly ledger: WriteLedger;
  readonly logger: Logger;
  readonly clock: () => number;
  /** Watch every run this process drives (metrics, traces). */
  readonly observers: readonly RunObserver[];
  /** Stop requests for the runs this process drives (a person's Stop button, on any process). */
  readonly stops?: RunStops;
  /** The loop setup for a run's origin (its write tools already go through the ledger). */
  depsFor(origin: TaskOrigin): LoopDeps;
  /** Wraps a run's sink (audit); `waitingTool` names the write a resumed run waited on. */
  sinkFor(origin: TaskOrigin, sink: EventSink, waitingTool?: string): EventSink;
  /** System prompt, memory and thread context for a new run. */
  buildContext(task: Task): Promise<ChatMessage[]>;
  /** A refusal to answer instead of running (access, limits), or undefined to run. */
  refusal(task: Task): Promise<RunOutcome | undefined>;
  /** Writes after an answer (history in the run's turn, facts after it). Must not throw. */
  afterAnswer(state: RunState, outcome: Extract<RunOutcome, { status: "answered" }>): Promise<void>;
  /** An approval ended by expiry that no caller here waited for. */
  expired(surface: Surface, pending: PendingApproval, outcome: RunOutcome): void;
}

export interface Runner {
  submit(task: Task, receipt: string): Promise<SubmitResult>;
  /** Runs a task that is not recorded (the console): resolves with its outcome. */
  ask(task: Task, sink: EventSink): Promise<RunOutcome>;
  /** Queues the resume of a claimed decision; with `sink`, a caller here waits for its outcome; `replyPlace` says where to show it. */
  resume(run: StoredRun, sink?: EventSink, replyPlace?: Readonly<Record<string, string>>): Promise<RunOutcome | undefined>;
  /** Ends the due approvals (SQLite's expiry); resolves with how many runs it ended. */
  sweep(): Promise<number>;
  /** Starts the workers. */
  start(): void;
  /** Queues what an earlier process left unfinished; call once the surfaces' presenters are registered. */
  recover(): Promise<void>;
  close(graceMs: number): Promise<void>;
}

const newRunId = () => randomBytes(6).toString("base64url");
const BAD_CHECKPOINT_ANSWER = "I could not continue your request after a restart: its saved progress could not be read. Nothing more was done; please ask again.";
const approvalKey = (runId: string, callId: string) => `approval:${runId}:${callId}`;
const replyPlaceKey = (runId: string, callId: string) => `resume:place:${runId}:${callId}`;
/** Longer than a resume waits in its conversation's queue. */
const REPLY_PLACE_TTL_MS = 60 * 60_000;
const ReplyPlaceSchema = z.record(z.string(), z.string());

/** Settles with the work, or with undefined once `signal` aborts (the work goes on unobserved; its state is in the store). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T | undefined> {
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise<T | undefined>((resolve, reject) => {
    const onAbort = () => resolve(undefined);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** The conversation a paused run belongs to (its queue lane); a run that can't be loaded gets a lane of its own. */
async function conversationOf(approvals: ApprovalStore, runId: string): Promise<string> {
  const loaded = await approvals.load(runId);
  return loaded.kind === "found" ? loaded.run.state.origin.conversationKey : `approval:${runId}`;
}

export function createRunner(deps: RunnerDeps): Runner {
  const { store, queue, presenters, logger, clock } = deps;
  const bootId = randomBytes(9).toString("base64url");
  const intake = createIntakeStore(store);
  const checkpoints = createCheckpointStore(store);
  const localTasks = new Map<string, Task>();
  const itemDone = new Map<string, (ended: boolean) => void>();
  // Set at close: runs stop at their next checkpoint (the queue's own signal only says when to stop waiting for them).
  const stopping = new AbortController();
  const stopSignal = (signal: AbortSignal) => AbortSignal.any([stopping.signal, signal]);

  function checkpointHook(writer: CheckpointWriter, runId: string) {
    return async (state: RunState) => {
      await writer.save(state).catch((error: unknown) => logger.warn({ err: error, runId }, "could not save a checkpoint; a restart would repeat this step"));
    };
  }

  /** Saves a pause (or says it could not) and schedules its expiry; returns the outcome to show. */
  async function storePause(result: LoopResult): Promise<RunOutcome> {
    const { outcome, state } = result;
    if (outcome.status !== "paused") return outcome;
    try {
      await (deps.approvals()).save({ state, pending: outcome.pending });
    } catch (error) {
      logger.error({ err: error, runId: outcome.runId }, "could not save a run waiting for approval");
      const tool = outcome.pending.tool;
      return {
        status: "answered",
        runId: outcome.runId,
        answer: `I need a person's approval to run ${tool}, but I could not save the request (the bot's store is unavailable), so ${tool} did not run. Please try again later.`,
        stop: { guard: "store_unavailable", detail: "the paused run could not be stored", sentence: `Stopped: ${tool} needs approval, but the request could not be saved, so it did not run.` },
        steps: outcome.steps,
        usage: outcome.usage,
      };
    }
    const item: WorkItem = { kind: "expire", conversationKey: state.origin.conversationKey, runId: outcome.runId, callId: outcome.pending.callId };
    await queue.add(item, { delayMs: Math.max(0, outcome.pending.expiresAt - clock()) }).catch((error: unknown) => logger.warn({ err: error, runId: outcome.runId }, "could not schedule an approval's expiry; the next start does"));
    return outcome;
  }

  /** Shows the outcome and does the writes after it; the answer goes out before history and facts. */
  async function conclude(result: LoopResult, presenter: RunPresenter, writer: CheckpointWriter, record?: IntakeRecord): Promise<RunOutcome> {
    const outcome = await storePause(result);
    await presenter.finish(outcome);
    if (record) {
      await intake.update({ ...record, state: "done", result: outcome.status }).catch((error: unknown) => logger.warn({ err: error, intakeId: record.id }, "could not mark a message done"));
    }
    await writer.clear().catch((error: unknown) => logger.warn({ err: error, runId: result.state.runId }, "could not clear a finished run's checkpoints"));
    if (outcome.status === "answered" && result.outcome.status === "answered") await deps.afterAnswer(result.state, outcome);
    return outcome;
  }

  /** The saved state plus a note about writes that started after it and never finished. */
  async function withUnknownWrites(state: RunState): Promise<RunState> {
    const unfinished = await deps.ledger.unfinished(state.runId);
    const known = knownCallIds(state.steps.flatMap((step) => step.calls), []);
    const note = unknownOutcomeNote(unfinished.filter((entry) => !known.has(entry.callId)));
    return note ? { ...state, messages: [...state.messages, { role: "system", content: note }] } : state;
  }

  async function handleRun(item: Extract<WorkItem, { kind: "run" }>, signal: AbortSignal): Promise<void> {
    const localTask = localTasks.get(item.intakeId);
    let record: IntakeRecord | undefined;
    if (!localTask) {
      const loaded = await intake.load(item.intakeId);
      if (loaded.kind !== "found") {
        if (loaded.kind === "invalid") logger.error({ intakeId: item.intakeId, reason: loaded.reason }, "a recorded message can't be read; it is dropped");
        await intake.drop(item.intakeId);
        return;
      }
      if (loaded.record.state === "done") return;
      record = { ...loaded.record, state: "running", owner: bootId };
      await intake.update(record);
    }
    localTasks.delete(item.intakeId);
    const task = localTask ?? (record!.task as Task);
    const runId = record ? record.id : newRunId();
    const presenter = presenters.presenterFor(item.intakeId, task.origin, task.text);
    const sink = deps.sinkFor(task.origin, presenter.sink);
    try {
      const saved: CheckpointLoad = record ? await checkpoints.load(runId) : { kind: "missing" };
      if (saved.kind === "invalid") {
        logger.error({ runId, reason: saved.reason }, "a run's checkpoint failed validation; ending that run with a plain reply");
        const outcome: RunOutcome = { status: "answered", runId, answer: BAD_CHECKPOINT_ANSWER, steps: [], usage: { promptTokens: 0, completionTokens: 0 } };
        await presenter.finish(outcome);
        if (record) await intake.update({ ...record, state: "done", result: "failed" });
        await checkpoints.remove(runId);
        return;
      }
      // A run that already took steps was admitted before.
      const refused = saved.kind === "found" ? undefined : await deps.refusal(task);
      if (refused) {
        sink({ type: "final", runId, outcome: refused });
        await presenter.finish(refused);
        if (record) await intake.update({ ...record, state: "done", result: "refused" });
        return;
      }
      const loopDeps = deps.depsFor(task.origin);
      const stop = deps.stops?.watch(runId, task.origin.requester);
      const writer = checkpoints.writer(runId, saved.kind === "found" ? saved : undefined);
      const hooks = { checkpoint: checkpointHook(writer, runId), signal: stopSignal(signal), stop: stop?.signal };
      const work = observeRun(deps.observers, logger, { runId, origin: task.origin, how: saved.kind === "found" ? "resumed" : "new" }, sink, (watched) =>
        saved.kind === "found"
          ? withUnknownWrites(saved.state).then((state) => continueAgent(state, loopDeps, watched, hooks))
          : deps.buildContext(task).then((context) => runAgent({ runId, origin: task.origin, question: task.text, context }, loopDeps, watched, hooks)),
      ).finally(() => stop?.dispose());
      const result = await untilAborted(work, signal);
      if (!result) return interrupted(item.intakeId, presenter);
      await conclude(result, presenter, writer, record);
    } catch (error) {
      if (error instanceof RunInterruptedError) return interrupted(item.intakeId, presenter);
      await presenter.fail(error);
      if (record) await intake.update({ ...record, state: "done", result: "failed" }).catch(() => undefined);
    }
  }

  /** A run stopped for shutdown stays unfinished in the store; only a caller waiting here is told. */
  async function interrupted(key: string, presenter: RunPresenter): Promise<void> {
    logger.info({ key }, "a run stopped at its checkpoint for shutdown; the next start continues it");
    if (presenters.isWaiting(key)) await presenter.fail(new Error("the bot is shutting down"));
  }

  /** Resumes a paused run with its claimed decision (expiry included); true when it ended the run. */
  async function handleApproval(item: Extract<WorkItem, { kind: "resume" | "expire" }>, signal: AbortSignal): Promise<boolean> {
    const approvals = deps.approvals();
    const loaded = await approvals.load(item.runId);
    if (loaded.kind !== "found") {
      if (loaded.kind === "invalid") logger.error({ runId: item.runId, reason: loaded.reason }, "a paused run can't be used; it is dropped");
      await approvals.remove(item.runId).catch(() => undefined);
      return false;
    }
    const { run } = loaded;
    if (run.pending.callId !== item.callId) return false;
    let claim = await approvals.decisionOf(item.runId, item.callId);
    if (!claim) {
      if (item.kind === "resume") return false;
      const wait = run.pending.expiresAt - clock();
      if (wait > 0) {
        await queue.add(item, { delayMs: wait });
        return false;
      }
      const won = await approvals.claim(item.runId, item.callId, { decision: "expired" }, clock());
      claim = won.won ? { decision: "expired", at: clock() } : won.existing;
      if (!claim) return false;
    }
    const resolution: Resolution = claim.decision === "expired" || !claim.decidedBy ? { kind: "expired" } : { kind: "decided", decision: claim.decision, decidedBy: claim.decidedBy };
    const key = approvalKey(item.runId, item.callId);
    const waiting = presenters.isWaiting(key);
    const origin = run.state.origin;
    const replyPlace = ReplyPlaceSchema.safeParse(await store.get(replyPlaceKey(item.runId, item.callId)));
    const shownAt: TaskOrigin = replyPlace.success ? { ...origin, place: { ...origin.place, ...replyPlace.data } } : origin;
    const presenter: RunPresenter =
      waiting || resolution.kind === "decided" || replyPlace.success ? presenters.presenterFor(key, shownAt, run.state.question) : { sink: () => {}, finish: async (outcome) => deps.expired(origin.surface, run.pending, outcome), fail: async (error) => logger.error({ err: error, runId: item.runId }, "an expired approval's run failed") };
    const sink = deps.sinkFor(origin, presenter.sink, run.pending.tool);
    const loopDeps = deps.depsFor(origin);
    // A checkpoint past the paused step means the decision was applied before a crash: go on from there.
    const saved = await checkpoints.load(item.runId);
    const later = saved.kind === "found" && saved.state.steps.length > run.state.steps.length ? saved : undefined;
    if (!later) await checkpoints.remove(item.runId);
    const stop = deps.stops?.watch(item.runId, origin.requester);
    const writer = checkpoints.writer(item.runId, later);
    const hooks = { checkpoint: checkpointHook(writer, item.runId), signal: stopSignal(signal), stop: stop?.signal };
    try {
      const work = observeRun(deps.observers, logger, { runId: item.runId, origin, how: resolution.kind === "expired" ? "expired" : "resumed" }, sink, (watched) =>
        later ? withUnknownWrites(later.state).then((state) => continueAgent(state, loopDeps, watched, hooks)) : resumeAgent(run.state, resolution, loopDeps, watched, hooks),
      ).finally(() => stop?.dispose());
      const result = await untilAborted(work, signal);
      if (!result) {
        await interrupted(key, presenter);
        return false;
      }
      // The decision is claimed, so the stale record can't run anything again; the answer must still go out.
      if (result.outcome.status !== "paused") await approvals.remove(item.runId).catch((error: unknown) => logger.warn({ err: error, runId: item.runId }, "could not clear a finished approval request"));
      await conclude(result, presenter, writer);
      return result.outcome.status !== "paused";
    } catch (error) {
      if (error instanceof RunInterruptedError) {
        await interrupted(key, presenter);
        return false;
      }
      await presenter.fail(error);
      return false;
    }
  }

  async function handle(item: WorkItem, signal: AbortSignal): Promise<void> {
    let ended = false;
    try {
      if (item.kind === "run") await handleRun(item, signal);
      else ended = await handleApproval(item, signal);
    } finally {
      if (item.kind !== "run") {
        const key = approvalKey(item.runId, item.callId);
        itemDone.get(key)?.(ended);
        itemDone.delete(key);
      }
    }
  }

  return {
    async submit(task, receipt) {
      const id = intakeIdFor(task.origin.surface, receipt);
      const record: IntakeRecord = { version: 1, id, state: "received", owner: bootId, task: task as IntakeRecord["task"], receivedAt: clock() };
      const received = await intake.receive(record);
      if (!received.won) {
        const existing = received.existing.kind === "found" ? received.existing.record : undefined;
        const decision = intakeDecision(existing, bootId);
        if (decision === "done" || decision === "in_progress") return { kind: "duplicate", intakeId: id, state: decision };
        // Its process died before finishing it: this process takes it up (from its checkpoint).
        await intake.update({ ...(existing ?? record), state: "received", owner: bootId });
      }
      await queue.add({ kind: "run", conversationKey: task.origin.conversationKey, intakeId: id });
      return { kind: "accepted", intakeId: id };
    },

    async ask(task, sink) {
      const id = newRunId();
      localTasks.set(id, task);
      const outcome = presenters.wait(id, sink);
      await queue.add({ kind: "run", conversationKey: task.origin.conversationKey, intakeId: id });
      return outcome;
    },

    async resume(run, sink, replyPlace) {
      const item: WorkItem = { kind: "resume", conversationKey: run.state.origin.conversationKey, runId: run.state.runId, callId: run.pending.callId };
      if (replyPlace) await store.set(replyPlaceKey(item.runId, item.callId), replyPlace, REPLY_PLACE_TTL_MS);
      const outcome = sink ? presenters.wait(approvalKey(item.runId, item.callId), sink) : undefined;
      await queue.add(item);
      return outcome;
    },

    async sweep() {
      const approvals = deps.approvals();
      const now = clock();
      const due = (await approvals.waiting()).filter((entry) => entry.expiresAt <= now);
      const ended: Promise<boolean>[] = [];
      for (const entry of due) {
        const key = approvalKey(entry.runId, entry.callId);
        ended.push(new Promise<boolean>((resolve) => itemDone.set(key, resolve)));
        await queue.add({ kind: "expire", conversationKey: await conversationOf(approvals, entry.runId), runId: entry.runId, callId: entry.callId });
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
        await queue.add({ kind: "expire", conversationKey, runId: entry.runId, callId: entry.callId }, { delayMs: claimed ? 0 : Math.max(0, entry.expiresAt - clock()) });
      }
    },

    close(graceMs) {
      stopping.abort();
      return queue.close(graceMs);
    },
  };
}
