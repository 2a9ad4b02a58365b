// A worker's handling of a paused run, top to bottom: load it (one gone, replaced or answered
// already needs nothing more) → its decision (the claimed one; an expiry claims one once it is
// due) → refuse it? (a requester or channel that lost access since: the run ends, its write not
// made) → set it up and resume it, or continue it from a checkpoint past the pause (the decision
// was applied before a crash) → conclude. A decision claimed before a crash is applied here too
// (by the next start or the expiry item), never left as "already decided" with no answer.
import { z } from "zod";
import { continueAgent, resumeAgent } from "../../agent/loop/loop.js";
import type { LoopResult, Resolution } from "../../agent/loop/loop-types.js";
import { RunInterruptedError, SurfaceUnavailableError } from "../../errors.js";
import type { RunPresenter } from "../api/presenting.js";
import type { OriginUpgrade } from "../api/surface-hooks.js";
import type { ReplyHandle } from "../api/task.js";
import { type ApprovalStore, connectionClaimOf, type StoredRun } from "../approvals/approval-store.js";
import type { WorkItem } from "../queue/work-queue.js";
import type { CheckpointLoad, CheckpointWriter } from "./checkpoint-store.js";
import { conclude } from "./conclude.js";
import { replyKey } from "./reply-key.js";
import { observeRun } from "./run-observer.js";
import type { StopWatch } from "./run-stops.js";
import { untilAborted, type WorkContext } from "./work-context.js";

export const approvalKey = (runId: string, callId: string) => `approval:${runId}:${callId}`;
export { REPLY_TTL_MS, replyKey } from "./reply-key.js";
const ReplySchema = z.record(z.string(), z.string());

/** The conversation a paused run belongs to (its queue lane); a run that can't be loaded gets a lane of its own. */
export async function conversationOf(approvals: ApprovalStore, runId: string): Promise<string> {
  const loaded = await approvals.load(runId);
  return loaded.kind === "found" ? loaded.run.state.origin.conversationKey : `approval:${runId}`;
}

/** `ended`: the run ended here; `open`: it did not (still waiting, failed, or not this item's call); `interrupted`: see ItemEnd. */
export type PausedItemEnd = "ended" | "open" | "interrupted";

type PausedItem = Extract<WorkItem, { kind: "resume" | "expire" }>;

export async function handlePaused(work: WorkContext, item: PausedItem, signal: AbortSignal): Promise<PausedItemEnd> {
  const run = await loadPaused(work, item);
  if (run === "ended" || run === "open") return run;
  const decision = await decisionOf(work, item, run);
  if (!decision) return "open";
  const key = approvalKey(item.runId, item.callId);
  // Read before the run, as everything it needs from the store is: a store that fails once the run is over would end it in an apology.
  const reply = await replyOf(work, item);
  const presenter = await presenterOf(work, item, run, decision, reply);
  // A checkpoint past the paused step means the decision was applied before a crash: go on from there.
  const saved = await work.checkpoints.load(item.runId);
  const later = saved.kind === "found" && saved.state.steps.length > run.state.steps.length ? saved : undefined;
  if (later && (await answeredBefore(work, item, presenter))) return "ended";
  // Asked now, not at the click: a requester blocked (or a channel removed) since, also while a restart kept the claimed
  // decision waiting, ends the run before its write. A decision applied before a crash (`later`) ran its write already.
  const refusal = decision.kind === "decided" && !later ? await work.deps.gate.goOn(run, decision) : undefined;
  const resolution: Resolution = refusal ? { kind: "refused", stop: refusal } : decision;
  if (!later) await work.checkpoints.remove(item.runId);
  // Before the run: a store that fails here fails the item, and the queue takes it up again later.
  const stop = await watchStop(work, item, run);
  try {
    const { running, writer } = resumePaused(work, item, run, resolution, later, presenter, stop, signal);
    const result = await untilAborted(running, signal);
    if (!result) return await work.interrupted(key, presenter);
    await conclude(work, result, presenter, writer, undefined, reply);
    // Only once the answer is out and marked: until then the record is how a takeover finds the run to answer (a
    // record left behind is a replay that finds the mark and shows nothing). The decision is claimed, so it runs nothing again.
    if (result.outcome.status !== "paused")
      await work.deps.approvals
        .remove(item.runId)
        .catch((error: unknown) => work.deps.logger.warn({ err: error, runId: item.runId }, "could not clear a finished approval request"));
    return result.outcome.status === "paused" ? "open" : "ended";
  } catch (error) {
    if (error instanceof RunInterruptedError) return await work.interrupted(key, presenter);
    await presenter.fail(error);
    return "open";
  }
}

/** The paused run this item is for, or how the item ends without it (gone, replaced by a later pause, answered before). */
async function loadPaused(work: WorkContext, item: PausedItem): Promise<StoredRun | "ended" | "open"> {
  const { approvals, logger, shows } = work.deps;
  const loaded = await approvals.load(item.runId);
  if (loaded.kind !== "found") {
    if (loaded.kind === "invalid") logger.error({ runId: item.runId, reason: loaded.reason }, "a paused run can't be used; it is dropped");
    await approvals.remove(item.runId).catch(() => undefined);
    return "open";
  }
  const run = upgradedRun(shows.upgrade, loaded.run);
  if (run.pending.callId !== item.callId) return "open";
  // A replay: the run answered before its approval record could be removed (see answer-marks.ts).
  if (await work.answeredBefore(item.runId)) {
    logger.info({ runId: item.runId }, "a run's answer was shown already; its approval record goes, nothing is shown again");
    await approvals.remove(item.runId);
    await work.checkpoints.remove(item.runId);
    return "ended";
  }
  return run;
}

/** The decision to resume with: the claimed one, or an expiry claimed now that the approval is due; undefined while it waits. */
async function decisionOf(
  work: WorkContext,
  item: PausedItem,
  run: StoredRun,
): Promise<Exclude<Resolution, { kind: "refused" }> | undefined> {
  const { approvals, queue, clock } = work.deps;
  // A run that waits for a connection is claimed under a call of its own (see connectionClaimOf).
  const callId = run.pending.connect ? connectionClaimOf(item.callId) : item.callId;
  let claim = await approvals.decisionOf(item.runId, callId);
  if (!claim) {
    if (item.kind === "resume") return undefined;
    const wait = run.pending.expiresAt - clock();
    if (wait > 0) {
      await queue.add(item, { delayMs: wait });
      return undefined;
    }
    const won = await approvals.claim(item.runId, callId, { decision: "expired" }, clock());
    claim = won.won ? { decision: "expired", at: clock() } : won.existing;
    if (!claim) return undefined;
  }
  return claim.decision === "expired" || !claim.decidedBy
    ? { kind: "expired" }
    : { kind: "decided", decision: claim.decision, decidedBy: claim.decidedBy };
}

/**
 * Who shows the rest of the run: the caller waiting here, or the surface's presenter (answering through the click's
 * reply handle) for a decision; an expiry nobody waits for goes to the surface's expiry handler. Nobody here could see
 * the outcome: the run is not resumed, and the claimed decision waits for a retry (or a process that can).
 */
async function presenterOf(
  work: WorkContext,
  item: PausedItem,
  run: StoredRun,
  decision: Resolution,
  reply: ReplyHandle | undefined,
): Promise<RunPresenter> {
  const { shows, logger } = work.deps;
  const key = approvalKey(item.runId, item.callId);
  const { origin } = run.state;
  const byPresenter = shows.isWaiting(key) || decision.kind === "decided" || reply !== undefined;
  if (byPresenter ? !shows.canShow(key, origin.surface) : !shows.showsExpiry(origin.surface))
    throw new SurfaceUnavailableError(origin.surface, key);
  if (byPresenter) return shows.presenterFor(key, origin, run.state.question, reply);
  return {
    sink: () => {},
    finish: async (outcome) => void shows.expired(origin.surface, run.pending, outcome),
    fail: async (error) => logger.error({ err: error, runId: item.runId }, "an expired approval's run failed"),
  };
}

/** How the surface answers the person through this item's call (the click that decided it, or the message that asked). */
async function replyOf(work: WorkContext, item: PausedItem): Promise<ReplyHandle | undefined> {
  const reply = ReplySchema.safeParse(await work.deps.store.get(replyKey(item.runId, item.callId)));
  return reply.success ? reply.data : undefined;
}

/** This decision ran before, and its answer is out: posted by a process that died before marking it. Not posted again. */
async function answeredBefore(work: WorkContext, item: PausedItem, presenter: RunPresenter): Promise<boolean> {
  const posted = await presenter.findAnswer?.(item.runId);
  if (!posted) return false;
  work.deps.logger.info(
    { runId: item.runId },
    "a resumed run's answer is in its conversation already (its mark was not written); not posted again",
  );
  await work.markAnswered(item.runId, posted);
  await work.deps.approvals.remove(item.runId);
  await work.checkpoints.remove(item.runId);
  return true;
}

/** The Stop of this decision's part of the run; one pressed while its resume ran before (a process that died, a store that failed) still holds. */
async function watchStop(work: WorkContext, item: PausedItem, run: StoredRun): Promise<StopWatch | undefined> {
  const { stops } = work.deps;
  const stoppedBy = await stops?.stoppedBefore(item.runId, item.callId);
  return stops?.watch(item.runId, run.state.origin.requester, item.callId, stoppedBy);
}

/** Sets the run up and resumes it with its resolution, or continues it from the checkpoint past its pause. */
function resumePaused(
  work: WorkContext,
  item: PausedItem,
  run: StoredRun,
  resolution: Resolution,
  later: Extract<CheckpointLoad, { kind: "found" }> | undefined,
  presenter: RunPresenter,
  stop: StopWatch | undefined,
  signal: AbortSignal,
): { readonly running: Promise<LoopResult>; readonly writer: CheckpointWriter } {
  const { deps } = work;
  const { origin } = run.state;
  const sink = deps.setup.sink(origin, presenter.sink, run.pending.tool);
  const loopDeps = deps.setup.loopDeps(origin);
  const writer = work.checkpoints.writer(item.runId, later);
  const hooks = { checkpoint: work.checkpointHook(writer, item.runId), signal: work.stopSignal(signal), stop: stop?.signal };
  const how = resolution.kind === "expired" ? "expired" : "resumed";
  const running = observeRun(
    deps.observers,
    deps.logger,
    { runId: item.runId, origin, how, setup: { question: run.state.question, deps: loopDeps } },
    sink,
    (watched) =>
      later
        ? work
            .withUnknownWrites(later.state, watched, (result) => loopDeps.tools.observation(result))
            .then((state) => continueAgent(state, loopDeps, watched, hooks))
        : resumeAgent(run.state, resolution, loopDeps, watched, hooks),
  ).finally(() => stop?.dispose());
  return { running, writer };
}

/** A paused run stored by an older version: its origins get their scope (the signature was checked on what was stored). */
export function upgradedRun(upgrade: OriginUpgrade, run: StoredRun): StoredRun {
  if (run.state.origin.scope) return run;
  const { origin } = upgrade(run.state.origin);
  return { state: { ...run.state, origin }, pending: { ...run.pending, origin } };
}
