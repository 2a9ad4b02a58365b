// A worker's handling of a paused run: resume it with its claimed decision, or end it when its
// approval expired. A decision claimed before a crash is applied here too (by the next start or
// the expiry item), never left as "already decided" with no answer.
import { z } from "zod";
import type { ApprovalStore, StoredRun } from "./approval-store.js";
import { continueAgent, resumeAgent } from "../agent/loop/loop.js";
import type { Resolution } from "../agent/loop/loop-types.js";
import type { OriginUpgrade, RunPresenter } from "./service.js";
import { SurfaceUnavailableError, RunInterruptedError } from "../errors.js";
import { observeRun } from "./run-observer.js";
import { untilAborted, type RunWork } from "./run-work.js";
import type { WorkItem } from "./work-queue.js";

export const approvalKey = (runId: string, callId: string) => `approval:${runId}:${callId}`;
/** How the surface answers through the click that decided (a secret: kept only as long as it works). */
export const replyKey = (runId: string, callId: string) => `resume:place:${runId}:${callId}`;
/** Longer than a resume waits in its conversation's queue; Discord's interaction tokens last 15 minutes. */
export const REPLY_TTL_MS = 15 * 60_000;
const ReplySchema = z.record(z.string(), z.string());

/** The conversation a paused run belongs to (its queue lane); a run that can't be loaded gets a lane of its own. */
export async function conversationOf(approvals: ApprovalStore, runId: string): Promise<string> {
  const loaded = await approvals.load(runId);
  return loaded.kind === "found" ? loaded.run.state.origin.conversationKey : `approval:${runId}`;
}

/** `ended`: the run ended here; `open`: it did not (still waiting, failed, or not this item's call); `interrupted`: see ItemEnd. */
export type ApprovalItemEnd = "ended" | "open" | "interrupted";

/** Resumes a paused run with its claimed decision (expiry included). */
export async function handleApproval(
  work: RunWork,
  item: Extract<WorkItem, { kind: "resume" | "expire" }>,
  signal: AbortSignal,
): Promise<ApprovalItemEnd> {
  const { deps, checkpoints, checkpointHook, stopSignal, withUnknownWrites, interrupted, conclude } = work;
  const { presenters, logger, clock, queue, store } = deps;
  const approvals = deps.approvals();
  const loaded = await approvals.load(item.runId);
  if (loaded.kind !== "found") {
    if (loaded.kind === "invalid") logger.error({ runId: item.runId, reason: loaded.reason }, "a paused run can't be used; it is dropped");
    await approvals.remove(item.runId).catch(() => undefined);
    return "open";
  }
  const run = upgradedRun(deps.upgrade, loaded.run);
  if (run.pending.callId !== item.callId) return "open";
  // A replay: the run answered before its approval record could be removed (see answer-marks.ts).
  if (await work.answeredBefore(item.runId)) {
    logger.info({ runId: item.runId }, "a run's answer was shown already; its approval record goes, nothing is shown again");
    await approvals.remove(item.runId);
    await checkpoints.remove(item.runId);
    return "ended";
  }
  let claim = await approvals.decisionOf(item.runId, item.callId);
  if (!claim) {
    if (item.kind === "resume") return "open";
    const wait = run.pending.expiresAt - clock();
    if (wait > 0) {
      await queue.add(item, { delayMs: wait });
      return "open";
    }
    const won = await approvals.claim(item.runId, item.callId, { decision: "expired" }, clock());
    claim = won.won ? { decision: "expired", at: clock() } : won.existing;
    if (!claim) return "open";
  }
  const decision: Resolution =
    claim.decision === "expired" || !claim.decidedBy
      ? { kind: "expired" }
      : { kind: "decided", decision: claim.decision, decidedBy: claim.decidedBy };
  const key = approvalKey(item.runId, item.callId);
  const waiting = presenters.isWaiting(key);
  const origin = run.state.origin;
  const reply = ReplySchema.safeParse(await store.get(replyKey(item.runId, item.callId)));
  const byPresenter = waiting || decision.kind === "decided" || reply.success;
  // Nobody here could see the outcome: the run is not resumed, and the claimed decision waits for a retry (or a process that can).
  if (byPresenter ? !presenters.canShow(key, origin.surface) : !deps.showsExpiry(origin.surface))
    throw new SurfaceUnavailableError(origin.surface, key);
  const presenter: RunPresenter = byPresenter
    ? presenters.presenterFor(key, origin, run.state.question, reply.success ? reply.data : undefined)
    : {
        sink: () => {},
        finish: async (outcome) => void deps.expired(origin.surface, run.pending, outcome),
        fail: async (error) => logger.error({ err: error, runId: item.runId }, "an expired approval's run failed"),
      };
  const sink = deps.sinkFor(origin, presenter.sink, run.pending.tool);
  const loopDeps = deps.depsFor(origin);
  // A checkpoint past the paused step means the decision was applied before a crash: go on from there.
  const saved = await checkpoints.load(item.runId);
  const later = saved.kind === "found" && saved.state.steps.length > run.state.steps.length ? saved : undefined;
  // This decision ran before: its answer may be out already, posted by a process that died before marking it.
  const posted = later ? await presenter.findAnswer?.(item.runId) : undefined;
  if (posted) {
    logger.info(
      { runId: item.runId },
      "a resumed run's answer is in its conversation already (its mark was not written); not posted again",
    );
    await work.markAnswered(item.runId, posted);
    await approvals.remove(item.runId);
    await checkpoints.remove(item.runId);
    return "ended";
  }
  // Asked now, not at the click: a requester blocked (or a channel removed) since, also while a restart kept the claimed
  // decision waiting, ends the run before its write. A decision applied before a crash (`later`) ran its write already.
  const refusal = decision.kind === "decided" && !later ? await deps.gate.goOn(run, decision) : undefined;
  const resolution: Resolution = refusal ? { kind: "refused", stop: refusal } : decision;
  if (!later) await checkpoints.remove(item.runId);
  // A Stop pressed while this decision's resume ran before (a process that died, a store that failed) still holds.
  const stoppedBy = await deps.stops?.stoppedBefore(item.runId, item.callId);
  const stop = deps.stops?.watch(item.runId, origin.requester, item.callId, stoppedBy);
  const writer = checkpoints.writer(item.runId, later);
  const hooks = { checkpoint: checkpointHook(writer, item.runId), signal: stopSignal(signal), stop: stop?.signal };
  try {
    const running = observeRun(
      deps.observers,
      logger,
      {
        runId: item.runId,
        origin,
        how: resolution.kind === "expired" ? "expired" : "resumed",
        setup: { question: run.state.question, deps: loopDeps },
      },
      sink,
      (watched) =>
        later
          ? withUnknownWrites(later.state, watched, (result) => loopDeps.tools.observation(result)).then((state) =>
              continueAgent(state, loopDeps, watched, hooks),
            )
          : resumeAgent(run.state, resolution, loopDeps, watched, hooks),
    ).finally(() => stop?.dispose());
    const result = await untilAborted(running, signal);
    if (!result) return await interrupted(key, presenter);
    await conclude(result, presenter, writer);
    // Only once the answer is out and marked: until then the record is how a takeover finds the run to answer (a
    // record left behind is a replay that finds the mark and shows nothing). The decision is claimed, so it runs nothing again.
    if (result.outcome.status !== "paused")
      await approvals
        .remove(item.runId)
        .catch((error: unknown) => logger.warn({ err: error, runId: item.runId }, "could not clear a finished approval request"));
    return result.outcome.status === "paused" ? "open" : "ended";
  } catch (error) {
    if (error instanceof RunInterruptedError) return await interrupted(key, presenter);
    await presenter.fail(error);
    return "open";
  }
}

/** A paused run stored by an older version: its origins get their scope (the signature was checked on what was stored). */
export function upgradedRun(upgrade: OriginUpgrade, run: StoredRun): StoredRun {
  if (run.state.origin.scope) return run;
  const { origin } = upgrade(run.state.origin);
  return { state: { ...run.state, origin }, pending: { ...run.pending, origin } };
}
