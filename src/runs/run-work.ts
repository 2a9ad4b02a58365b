// What the workers share: the stores a run is kept in, saving a checkpoint after each step,
// saving a pause, showing an outcome and the writes after it, and stopping for shutdown.
import { randomBytes } from "node:crypto";
import type { ApprovalStore } from "./approval-store.js";
import type { DecisionGate } from "./decision-gate.js";
import type { LoopDeps, LoopResult, RunStart } from "../agent/loop/loop-types.js";
import type { RunState } from "../agent/loop/run-state.js";
import type { OriginUpgrade, PostedAnswer, RunPresenter, Task } from "./service.js";
import type { ChatMessage, EventSink, PendingApproval, RunOutcome, Surface, TaskOrigin } from "../contracts/types.js";
import type { Logger } from "../logger.js";
import type { KeyValueStore } from "../memory/types.js";
import { createAnswerMarks, type AnswerMark } from "./answer-marks.js";
import { createCheckpointStore, UNRECORDED_RUN, type CheckpointStore, type CheckpointWriter } from "./checkpoint-store.js";
import { createIntakeStore, type IntakeRecord, type IntakeStore } from "./intake-store.js";
import { STORE_RETRY, withRetries } from "./retry.js";
import type { Presenters } from "./presenters.js";
import type { RunObserver } from "./run-observer.js";
import type { RunStops } from "./run-stops.js";
import type { WorkItem, WorkQueue } from "./work-queue.js";
import { withUnknownOutcomes, type Observe } from "./unknown-writes.js";
import { knownCallIds, type WriteLedger } from "./write-ledger.js";

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
  /** The task's files as the question's parts, prepared within the run's time; undefined when it brought none. */
  attachmentsFor?(task: Task, runId: string, sink: EventSink): RunStart["attachments"];
  /** Whether a paused run may go on after its decision, asked as its resume runs (decision-gate.ts). */
  readonly gate: Pick<DecisionGate, "goOn">;
  /** A refusal to answer instead of running (access, limits), or undefined to run. */
  refusal(task: Task): Promise<Extract<RunOutcome, { status: "answered" }> | undefined>;
  /** Writes after an answer (history in the run's turn, facts after it). Must not throw. */
  afterAnswer(state: RunState, outcome: Extract<RunOutcome, { status: "answered" }>): Promise<void>;
  /** Called as an answer is about to show: a `forget` of the conversation waits until the returned release (the writes after it are done). */
  answering?(conversationKey: string): () => void;
  /** True when a surface here shows an approval that expired with no caller waiting (it registered an expiry handler). */
  showsExpiry(surface: Surface): boolean;
  /** An approval ended by expiry that no caller here waited for. */
  expired(surface: Surface, pending: PendingApproval, outcome: RunOutcome): void;
  /** Reads an origin loaded from the store as this version does (a record of an older version gets its scope). */
  upgrade: OriginUpgrade;
}

export interface RunWork {
  readonly deps: RunnerDeps;
  readonly intake: IntakeStore;
  readonly checkpoints: CheckpointStore;
  /** This process's id in intake records: a record owned by another boot id belongs to a process that died. */
  readonly bootId: string;
  /** The queue's signal, or the runner closing: the run stops at its next checkpoint. */
  stopSignal(signal: AbortSignal): { readonly aborted: boolean };
  /** None for a run nobody could continue (UNRECORDED_RUN): the loop then builds no state to save between steps. */
  checkpointHook(writer: CheckpointWriter, runId: string): ((state: RunState) => Promise<void>) | undefined;
  /** Shows the outcome (saving a pause first) and does the writes after it; the answer goes out, and is marked shown, before history and facts. */
  conclude(result: LoopResult, presenter: RunPresenter, writer: CheckpointWriter, record?: IntakeRecord): Promise<RunOutcome>;
  /** Whether this run's answer was shown already (a replay of its tail must not show it again). Rejects when the store fails. */
  answeredBefore(runId: string): Promise<AnswerMark | undefined>;
  /** Whether the approval card for `callId` was shown already. Rejects when the store fails. */
  cardShownBefore(runId: string, callId: string): Promise<boolean>;
  /** Records that an outcome was shown (see answer-marks.ts); tries while the store blinks. Never rejects. */
  markShown(outcome: RunOutcome, posted: PostedAnswer | undefined): Promise<void>;
  /** markShown for an answer found on the platform (posted by a process that died before marking it). Never rejects. */
  markAnswered(runId: string, posted: PostedAnswer): Promise<void>;
  /** The saved state plus a step for the writes the ledger holds and the state does not show, with their outcomes, shown on `sink`. */
  withUnknownWrites(state: RunState, sink: EventSink, observe: Observe): Promise<RunState>;
  interrupted(key: string, presenter: RunPresenter): Promise<"interrupted">;
}

/** Settles with the work, or with undefined once `signal` aborts (the work goes on unobserved; its state is in the store). */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T | undefined> {
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise<T | undefined>((resolve, reject) => {
    // A listener object, not a closure: one fewer function made per run.
    const listener = {
      handleEvent() {
        resolve(undefined);
      },
    };
    signal.addEventListener("abort", listener, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener("abort", listener);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", listener);
        reject(error);
      },
    );
  });
}

export function createRunWork(deps: RunnerDeps, stopping: AbortSignal): RunWork {
  const { queue, presenters, logger, clock } = deps;
  const intake = createIntakeStore(deps.store);
  const answers = createAnswerMarks(deps.store);

  function checkpointHook(writer: CheckpointWriter, runId: string) {
    if (writer === UNRECORDED_RUN) return undefined;
    return async (state: RunState) => {
      await writer
        .save(state)
        .catch((error: unknown) => logger.warn({ err: error, runId }, "could not save a checkpoint; a restart would repeat this step"));
    };
  }

  /** Saves a pause (or says it could not) and schedules its expiry; returns the outcome to show. */
  async function storePause(result: LoopResult): Promise<RunOutcome> {
    const { outcome, state } = result;
    if (outcome.status !== "paused") return outcome;
    try {
      // A Redis restart must not cost the request: a person was promised an answer, and a failure here is one.
      await withRetries(
        () => deps.approvals().save({ state, pending: outcome.pending }),
        STORE_RETRY,
        (error, attempt) =>
          logger.warn({ err: error, runId: outcome.runId, attempt }, "could not save a run waiting for approval; trying again"),
      );
    } catch (error) {
      logger.error({ err: error, runId: outcome.runId }, "could not save a run waiting for approval");
      const tool = outcome.pending.tool;
      return {
        status: "answered",
        runId: outcome.runId,
        answer: `I need a person's approval to run ${tool}, but I could not save the request (the bot's store is unavailable), so ${tool} did not run. Please try again later.`,
        stop: {
          guard: "store_unavailable",
          detail: "the paused run could not be stored",
          sentence: `Stopped: ${tool} needs approval, but the request could not be saved, so it did not run.`,
        },
        steps: outcome.steps,
        usage: outcome.usage,
      };
    }
    const item: WorkItem = {
      kind: "expire",
      conversationKey: state.origin.conversationKey,
      runId: outcome.runId,
      callId: outcome.pending.callId,
    };
    await queue
      .add(item, { delayMs: Math.max(0, outcome.pending.expiresAt - clock()) })
      .catch((error: unknown) =>
        logger.warn({ err: error, runId: outcome.runId }, "could not schedule an approval's expiry; the next start does"),
      );
    return outcome;
  }

  /** Records that the answer (or the approval card) was shown, trying while the store blinks (a Redis restart): a replay without the mark would show it again. */
  function markShown(outcome: RunOutcome, posted: PostedAnswer | undefined): Promise<void> {
    const { runId } = outcome;
    const mark = { at: clock(), ...(posted ? { messageId: posted.messageId } : {}) };
    return outcome.status === "answered"
      ? markWith(runId, () => answers.record(runId, mark))
      : markWith(runId, () => answers.recordCard(runId, outcome.pending.callId, mark));
  }

  async function markWith(runId: string, write: () => Promise<void>): Promise<void> {
    await withRetries(write, STORE_RETRY, (error, attempt) =>
      logger.warn({ err: error, runId, attempt }, "could not record that a run's outcome was shown; trying again"),
    ).catch((error: unknown) =>
      logger.error({ err: error, runId }, "could not record that a run's outcome was shown; a replay of the run could show it again"),
    );
  }

  /** Shows the outcome and does the writes after it; the answer goes out before history and facts. */
  async function conclude(
    result: LoopResult,
    presenter: RunPresenter,
    writer: CheckpointWriter,
    record?: IntakeRecord,
  ): Promise<RunOutcome> {
    const release = result.outcome.status === "answered" ? deps.answering?.(result.state.origin.conversationKey) : undefined;
    try {
      return await showAndWrite(result, presenter, writer, record);
    } finally {
      release?.();
    }
  }

  async function showAndWrite(
    result: LoopResult,
    presenter: RunPresenter,
    writer: CheckpointWriter,
    record?: IntakeRecord,
  ): Promise<RunOutcome> {
    const outcome = await storePause(result);
    const posted = await presenter.finish(outcome);
    if (outcome.status === "answered" && record && posted !== undefined && "unposted" in posted) {
      // Never done without a post: the message stays unfinished, with its checkpoints, and the next start answers it.
      logger.warn({ runId: result.state.runId }, "the answer could not be posted; the next start answers this message");
      return outcome;
    }
    // Before anything that ends the run's replay (the intake record, the checkpoints, the approval record): see answer-marks.ts.
    if (writer !== UNRECORDED_RUN) await markShown(outcome, posted && "messageId" in posted ? posted : undefined);
    // Tried as long: a record left running is taken up again by the next start (a replay that finds the mark and shows nothing).
    if (record) {
      // The reply handle (an interaction token) is not kept once the message is answered.
      const { reply: _reply, ...task } = record.task;
      await withRetries(() => intake.update({ ...record, task, state: "done", result: outcome.status }), STORE_RETRY).catch(
        (error: unknown) => logger.warn({ err: error, intakeId: record.id }, "could not mark a message done"),
      );
    }
    await writer
      .clear()
      .catch((error: unknown) => logger.warn({ err: error, runId: result.state.runId }, "could not clear a finished run's checkpoints"));
    if (outcome.status === "answered" && result.outcome.status === "answered") await deps.afterAnswer(result.state, outcome);
    return outcome;
  }

  async function withUnknownWrites(state: RunState, sink: EventSink, observe: Observe): Promise<RunState> {
    const known = knownCallIds(
      state.steps.flatMap((step) => step.calls),
      state.messages,
    );
    // Read before the run goes on, once the store answers: what it holds decides what may run again.
    const entries = await withRetries(() => deps.ledger.entries(state.runId), STORE_RETRY);
    const unknown = entries.filter((entry) => !known.has(entry.callId));
    const added = withUnknownOutcomes(state, unknown, observe);
    for (const event of added.events) sink(event);
    return added.state;
  }

  /** A run stopped for shutdown stays unfinished in the store (and its item at its conversation's head); only a caller waiting here is told. */
  async function interrupted(key: string, presenter: RunPresenter): Promise<"interrupted"> {
    logger.info({ key }, "a run stopped at its checkpoint for shutdown; the next start (or another process) continues it");
    if (presenters.isWaiting(key)) await presenter.fail(new Error("the bot is shutting down"));
    return "interrupted";
  }

  return {
    deps,
    intake,
    checkpoints: createCheckpointStore(deps.store),
    bootId: randomBytes(9).toString("base64url"),
    // Only read at checkpoints: a getter instead of AbortSignal.any, which costs tens of µs per run.
    stopSignal: (signal) => ({
      get aborted() {
        return stopping.aborted || signal.aborted;
      },
    }),
    checkpointHook,
    conclude,
    answeredBefore: (runId) => answers.find(runId),
    cardShownBefore: (runId, callId) => answers.cardShown(runId, callId),
    markShown,
    markAnswered: (runId, posted) => markWith(runId, () => answers.record(runId, { at: clock(), messageId: posted.messageId })),
    withUnknownWrites,
    interrupted,
  };
}
