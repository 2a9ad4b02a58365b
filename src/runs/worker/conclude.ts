// The end of a run's item: its outcome shown (a pause saved first, with its expiry queued; an
// answer quoting a more private place held: runs/holds), the mark that it was shown, the
// message's record done, its checkpoints cleared, then the writes after an answer (history, facts). The answer goes out, and is marked shown, before history and
// facts; nothing that ends a run's replay is written before its mark (answer-marks.ts).
import type { LoopResult } from "../../agent/loop/loop-types.js";
import type { PendingApproval, RunOutcome } from "../../contracts/types.js";
import type { NoteLink, RunPresenter } from "../api/presenting.js";
import type { IntakeRecord } from "../intake/intake-store.js";
import type { ReplyHandle } from "../api/task.js";
import type { WorkItem } from "../queue/work-queue.js";
import { holdIfQuoting } from "../holds/answer-holds.js";
import { STORE_RETRY, withRetries } from "../retry.js";
import { UNRECORDED_RUN, type CheckpointWriter } from "./checkpoint-store.js";
import type { WorkContext } from "./work-context.js";
import { withConnectUrl } from "./connect-link.js";
import { REPLY_TTL_MS, replyKey } from "./reply-key.js";

/** Shows the outcome and does the writes after it; `record` is the message's, for a run of one; `reply`: how a resumed run answers. */
export async function conclude(
  work: WorkContext,
  result: LoopResult,
  presenter: RunPresenter,
  writer: CheckpointWriter,
  record?: IntakeRecord,
  reply?: ReplyHandle,
): Promise<RunOutcome> {
  const release = result.outcome.status === "answered" ? work.deps.memory.answering(result.state.origin.conversationKey) : undefined;
  try {
    return await showAndWrite(work, result, presenter, writer, record, reply);
  } finally {
    release?.();
  }
}

async function showAndWrite(
  work: WorkContext,
  result: LoopResult,
  presenter: RunPresenter,
  writer: CheckpointWriter,
  record?: IntakeRecord,
  reply?: ReplyHandle,
): Promise<RunOutcome> {
  const { logger } = work.deps;
  const stored = await storePause(work, await withConnectLink(work, result, record?.task.reply ?? reply));
  const outcome = work.deps.holds ? await holdIfQuoting(work.deps.holds, stored, result.state) : stored;
  if (questionDeleted(outcome)) return endDeleted(work, outcome, presenter, writer, record);
  const posted = await presenter.finish(outcome);
  if (outcome.status === "answered" && record && posted !== undefined && "unposted" in posted) {
    // Never done without a post: the message stays unfinished, with its checkpoints, and the next start answers it.
    logger.warn({ runId: result.state.runId }, "the answer could not be posted; the next start answers this message");
    return outcome;
  }
  // Before anything that ends the run's replay (the intake record, the checkpoints, the approval record): see answer-marks.ts.
  if (writer !== UNRECORDED_RUN) await work.markShown(outcome, posted && "messageId" in posted ? posted : undefined);
  // Tried as long: a record left running is taken up again by the next start (a replay that finds the mark and shows nothing).
  if (record) {
    // The reply handle (an interaction token) is not kept once the message is answered.
    const { reply: _reply, ...task } = record.task;
    await withRetries(() => work.intake.update({ ...record, task, state: "done", result: outcome.status }), STORE_RETRY).catch(
      (error: unknown) => logger.warn({ err: error, intakeId: record.id }, "could not mark a message done"),
    );
  }
  await writer
    .clear()
    .catch((error: unknown) => logger.warn({ err: error, runId: result.state.runId }, "could not clear a finished run's checkpoints"));
  if (outcome.status === "answered" && result.outcome.status === "answered") await work.deps.memory.afterAnswer(result.state, outcome);
  return outcome;
}

const questionDeleted = (outcome: RunOutcome): boolean => outcome.status === "answered" && outcome.stop?.guard === "question_deleted";

/** Its question was deleted while it worked: its progress ends where it showed, nothing is answered or remembered. */
async function endDeleted(
  work: WorkContext,
  outcome: RunOutcome,
  presenter: RunPresenter,
  writer: CheckpointWriter,
  record?: IntakeRecord,
): Promise<RunOutcome> {
  await (presenter.settleQuietly ? presenter.settleQuietly(outcome) : presenter.finish(outcome));
  if (writer !== UNRECORDED_RUN) await work.markShown(outcome, undefined);
  if (record) {
    const { reply: _reply, ...task } = record.task;
    await withRetries(() => work.intake.update({ ...record, task, state: "done", result: "deleted" }), STORE_RETRY).catch(
      (error: unknown) => work.deps.logger.warn({ err: error, intakeId: record.id }, "could not mark a deleted question done"),
    );
  }
  await writer
    .clear()
    .catch((error: unknown) => work.deps.logger.warn({ err: error, runId: outcome.runId }, "could not clear a run's checkpoints"));
  return outcome;
}

/**
 * A run that waits for its requester to connect a server gets its private Connect link; the reply
 * handle of the message goes with it, so the rest of the run answers where the person asked.
 */
async function withConnectLink(work: WorkContext, result: LoopResult, reply?: ReplyHandle): Promise<LoopResult> {
  const { outcome } = result;
  const { connectLink, store, logger } = work.deps;
  if (outcome.status !== "paused" || !outcome.pending.connect || !connectLink) return result;
  const { pending } = outcome;
  if (result.state.origin.schedule) return skippedSlot(work, result, pending, connectLink);
  if (reply)
    await store
      .set(replyKey(pending.runId, pending.callId), reply, REPLY_TTL_MS)
      .catch((error: unknown) =>
        logger.warn({ err: error, runId: pending.runId }, "could not keep where a run waiting for a connection answers"),
      );
  return { ...result, outcome: { ...outcome, pending: await withConnectUrl(pending, connectLink, logger) } };
}

/**
 * A schedule's slot has nobody waiting at the chat for it: it does not pause. Its owner is told
 * privately, with a link that connects them for the next slots, and the slot ends saying so.
 */
async function skippedSlot(
  work: WorkContext,
  result: LoopResult,
  pending: PendingApproval,
  connectLink: (pending: PendingApproval) => Promise<string>,
): Promise<LoopResult> {
  const { shows, logger } = work.deps;
  const server = pending.connect!.server;
  const told = await connectLink(pending)
    .then((url) => shows.tell?.(pending.origin, slotConnectText(server, url), slotConnectButton(server, url)) ?? false)
    .catch((error: unknown) => {
      logger.error({ err: error, runId: pending.runId }, "could not send a schedule's owner their Connect link");
      return false;
    });
  const answer = `This slot was skipped: it needs its owner to connect ${server}${told ? ", and they were sent a private link to do it" : ""}. The next slot runs as usual.`;
  const { steps, usage } = result.outcome;
  const sentence = `Skipped: ${server} is not connected.`;
  const stop = { guard: "approval_expired" as const, detail: `the schedule's owner has not connected ${server}`, sentence };
  return { ...result, outcome: { status: "answered", runId: pending.runId, answer, stop, steps, usage } };
}

const slotConnectText = (server: string, url: string) =>
  `Your schedule needs you to connect ${server}, so this slot was skipped. Connect ${server}: ${url}\nThe link is yours alone and lasts 10 minutes; the next slots run as you once you are connected.`;

/** The same note where the surface shows the link as a button. */
const slotConnectButton = (server: string, url: string): NoteLink => ({
  label: `Connect ${server}`,
  url,
  caption: `Your schedule needs you to connect ${server}, so this slot was skipped. Sign in as yourself with the button (the link is yours alone and lasts 10 minutes); the next slots run as you once you are connected.`,
});

/** Saves a pause (or says it could not) and schedules its expiry; returns the outcome to show. */
async function storePause(work: WorkContext, result: LoopResult): Promise<RunOutcome> {
  const { approvals, queue, logger, clock } = work.deps;
  const { outcome, state } = result;
  if (outcome.status !== "paused") return outcome;
  try {
    // A Redis restart must not cost the request: a person was promised an answer, and a failure here is one.
    await withRetries(
      () => approvals.save({ state, pending: outcome.pending }),
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
