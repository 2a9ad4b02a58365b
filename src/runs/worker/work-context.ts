// What the workers share while they handle items: the stores a run is kept in (intake records,
// checkpoints, answer marks), this process's boot id, a checkpoint after each step, the marks that
// an outcome was shown, the writes a crash left unknown, and stopping for shutdown.
import { randomBytes } from "node:crypto";
import type { RunState } from "../../agent/loop/run-state.js";
import type { EventSink } from "../../contracts/types.js";
import type { PostedAnswer, RunPresenter } from "../api/presenting.js";
import { createInbox, type Inbox } from "../intake/inbox.js";
import { createIntakeStore, type IntakeStore } from "../intake/intake-store.js";
import { STORE_RETRY, withRetries } from "../retry.js";
import { createLiveRuns, type LiveRuns } from "./live-runs.js";
import { createAnswerMarks, type AnswerMark } from "./answer-marks.js";
import { createCheckpointStore, UNRECORDED_RUN, type CheckpointStore, type CheckpointWriter } from "./checkpoint-store.js";
import { withUnknownOutcomes, type Observe } from "./unknown-writes.js";
import type { WorkerDeps } from "./worker-deps.js";
import { knownCallIds } from "./write-ledger.js";
import type { RunOutcome } from "../../contracts/types.js";

export interface WorkContext {
  readonly deps: WorkerDeps;
  readonly intake: IntakeStore;
  /** Each conversation's messages recorded and not taken up yet. */
  readonly inbox: Inbox;
  /** The run in flight in each conversation (what an interrupting message stops). */
  readonly live: LiveRuns;
  readonly checkpoints: CheckpointStore;
  /** This process's id in intake records: a record owned by another boot id belongs to a process that died. */
  readonly bootId: string;
  /** The queue's signal, or the runner closing: the run stops at its next checkpoint. */
  stopSignal(signal: AbortSignal): { readonly aborted: boolean };
  /** None for a run nobody could continue (UNRECORDED_RUN): the loop then builds no state to save between steps. */
  checkpointHook(writer: CheckpointWriter, runId: string): ((state: RunState) => Promise<void>) | undefined;
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

export function createWorkContext(deps: WorkerDeps, stopping: AbortSignal): WorkContext {
  const { shows, logger, clock } = deps;
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
    if (shows.isWaiting(key)) await presenter.fail(new Error("the bot is shutting down"));
    return "interrupted";
  }

  return {
    deps,
    intake,
    inbox: createInbox(deps.store),
    live: createLiveRuns(deps.store, logger),
    checkpoints: createCheckpointStore(deps.store),
    bootId: randomBytes(9).toString("base64url"),
    // Only read at checkpoints: a getter instead of AbortSignal.any, which costs tens of µs per run.
    stopSignal: (signal) => ({
      get aborted() {
        return stopping.aborted || signal.aborted;
      },
    }),
    checkpointHook,
    answeredBefore: (runId) => answers.find(runId),
    cardShownBefore: (runId, callId) => answers.cardShown(runId, callId),
    markShown,
    markAnswered: (runId, posted) => markWith(runId, () => answers.record(runId, { at: clock(), messageId: posted.messageId })),
    withUnknownWrites,
    interrupted,
  };
}
