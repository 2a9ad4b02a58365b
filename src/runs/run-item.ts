// A worker's handling of one recorded message: run it, or continue it from its checkpoint
// (the model is not asked again for steps already done), and show it through its presenter.
import { newRunId } from "./run-id.js";
import { SurfaceUnavailableError, RunInterruptedError } from "../errors.js";
import { continueAgent, runAgent } from "../agent/loop/loop.js";
import type { OriginUpgrade, RunPresenter, Task } from "./service.js";
import type { RunOutcome } from "../contracts/types.js";
import { UNRECORDED_RUN, type CheckpointLoad } from "./checkpoint-store.js";
import type { IntakeRecord } from "./intake-store.js";
import { settleReplay } from "./replayed-run.js";
import { observeRun } from "./run-observer.js";
import { untilAborted, type RunWork } from "./run-work.js";
import type { ItemEnd, WorkItem } from "./work-queue.js";

/** The part of a run a Stop pressed during the message's own run applies to (a resume's is its decision's call id). */
const RUN_SEGMENT = "message";

const BAD_CHECKPOINT_ANSWER =
  "I could not continue your request after a restart: its saved progress could not be read. Nothing more was done; please ask again.";

export async function handleRun(
  work: RunWork,
  localTasks: Map<string, Task>,
  item: Extract<WorkItem, { kind: "run" }>,
  signal: AbortSignal,
): Promise<ItemEnd> {
  const { deps, intake, checkpoints, bootId, checkpointHook, stopSignal, withUnknownWrites, interrupted, conclude } = work;
  const { presenters, logger } = deps;
  const localTask = localTasks.get(item.intakeId);
  let record: IntakeRecord | undefined;
  // Started before (by a process that died, or whose store failed as it finished): a Stop pressed then still holds.
  let replay = false;
  if (!localTask) {
    const loaded = await intake.load(item.intakeId);
    if (loaded.kind !== "found") {
      if (loaded.kind === "invalid")
        logger.error({ intakeId: item.intakeId, reason: loaded.reason }, "a recorded message can't be read; it is dropped");
      await intake.drop(item.intakeId);
      return "done";
    }
    if (loaded.record.state === "done") {
      // Still listed as unfinished when a kill came between the record's last two writes: the listing goes now.
      await intake.drop(item.intakeId);
      return "done";
    }
    // A replay whose run showed its outcome already (see replayed-run.ts).
    if (loaded.record.state === "running" && (await settleReplay(work, loaded.record))) return "done";
    // Nobody here could see it: it is not started, so its record stays unfinished for a retry (or a process that can).
    const { surface } = loaded.record.task.origin;
    if (!presenters.canShow(item.intakeId, surface)) throw new SurfaceUnavailableError(surface, item.intakeId);
    replay = loaded.record.state === "running";
    record = { ...loaded.record, state: "running", owner: bootId };
    await intake.update(record);
  }
  localTasks.delete(item.intakeId);
  const task = localTask ?? upgradedTask(deps.upgrade, record!.task as Task);
  const runId = record ? record.id : newRunId();
  // Built once the run is known to go ahead: a refused message shows no progress at all.
  let shown: RunPresenter | undefined;
  const presenter = () => (shown ??= presenters.presenterFor(item.intakeId, task.origin, task.text, task.reply));
  // Before anything is shown: a store that fails here fails the item, and the queue takes it up again later.
  const saved = upgradedCheckpoint(deps.upgrade, record ? await checkpoints.load(runId) : { kind: "missing" });
  try {
    if (saved.kind === "invalid") {
      logger.error({ runId, reason: saved.reason }, "a run's checkpoint failed validation; ending that run with a plain reply");
      const outcome: RunOutcome = {
        status: "answered",
        runId,
        answer: BAD_CHECKPOINT_ANSWER,
        steps: [],
        usage: { promptTokens: 0, completionTokens: 0 },
      };
      await presenter().finish(outcome);
      if (record) await intake.update({ ...record, state: "done", result: "failed" });
      await checkpoints.remove(runId);
      return "done";
    }
    // A run that already took steps was admitted before.
    const refused = saved.kind === "found" ? undefined : await deps.refusal(task);
    if (refused) {
      deps.sinkFor(task.origin, () => {})({ type: "final", runId, outcome: refused });
      await presenters.refuse(item.intakeId, task.origin, task.text, refused, task.reply);
      if (record) await intake.update({ ...record, state: "done", result: "refused" });
      return "done";
    }
    const { sink } = presenter();
    const audited = deps.sinkFor(task.origin, sink);
    const loopDeps = deps.depsFor(task.origin);
    const stoppedBy = replay ? await deps.stops?.stoppedBefore(runId, RUN_SEGMENT) : undefined;
    const stop = deps.stops?.watch(runId, task.origin.requester, RUN_SEGMENT, stoppedBy);
    const writer = record ? checkpoints.writer(runId, saved.kind === "found" ? saved : undefined) : UNRECORDED_RUN;
    const hooks = { checkpoint: checkpointHook(writer, runId), signal: stopSignal(signal), stop: stop?.signal };
    const running = observeRun(
      deps.observers,
      logger,
      { runId, origin: task.origin, how: saved.kind === "found" ? "resumed" : "new", setup: { question: task.text, deps: loopDeps } },
      audited,
      (watched) =>
        saved.kind === "found"
          ? withUnknownWrites(saved.state, watched, (result) => loopDeps.tools.observation(result)).then((state) =>
              continueAgent(state, loopDeps, watched, hooks),
            )
          : deps
              .buildContext(task)
              .then((context) =>
                runAgent(
                  { runId, origin: task.origin, question: task.text, context, attachments: deps.attachmentsFor?.(task, runId, watched) },
                  loopDeps,
                  watched,
                  hooks,
                ),
              ),
    ).finally(() => stop?.dispose());
    const result = await untilAborted(running, signal);
    if (!result) return await interrupted(item.intakeId, presenter());
    await conclude(result, presenter(), writer, record);
    return "done";
  } catch (error) {
    if (error instanceof RunInterruptedError) return await interrupted(item.intakeId, presenter());
    await presenter().fail(error);
    if (record) await intake.update({ ...record, state: "done", result: "failed" }).catch(() => undefined);
    return "done";
  }
}

/** A recorded task of an older version: its origin gets its scope, and a secret its place held becomes the reply handle. */
function upgradedTask(upgrade: OriginUpgrade, task: Task): Task {
  if (task.origin.scope) return task;
  const { origin, reply } = upgrade(task.origin);
  const handle = task.reply ?? reply;
  return { ...task, origin, ...(handle ? { reply: handle } : {}) };
}

function upgradedCheckpoint(upgrade: OriginUpgrade, saved: CheckpointLoad): CheckpointLoad {
  if (saved.kind !== "found" || saved.state.origin.scope) return saved;
  return { ...saved, state: { ...saved.state, origin: upgrade(saved.state.origin).origin } };
}
