// A worker's handling of one recorded message: run it, or continue it from its checkpoint
// (the model is not asked again for steps already done), and show it through its presenter.
import { newRunId } from "./run-id.js";
import { SurfaceUnavailableError } from "../errors.js";
import { continueAgent, runAgent, RunInterruptedError } from "../agent/loop.js";
import type { RunPresenter, Task } from "./service.js";
import type { RunOutcome } from "../agent/types.js";
import { UNRECORDED_RUN, type CheckpointLoad } from "./checkpoint-store.js";
import type { IntakeRecord } from "./intake-store.js";
import { observeRun } from "./run-observer.js";
import { untilAborted, type RunWork } from "./run-work.js";
import type { WorkItem } from "./work-queue.js";

const BAD_CHECKPOINT_ANSWER =
  "I could not continue your request after a restart: its saved progress could not be read. Nothing more was done; please ask again.";

export async function handleRun(
  work: RunWork,
  localTasks: Map<string, Task>,
  item: Extract<WorkItem, { kind: "run" }>,
  signal: AbortSignal,
): Promise<void> {
  const { deps, intake, checkpoints, bootId, checkpointHook, stopSignal, withUnknownWrites, interrupted, conclude } = work;
  const { presenters, logger } = deps;
  const localTask = localTasks.get(item.intakeId);
  let record: IntakeRecord | undefined;
  if (!localTask) {
    const loaded = await intake.load(item.intakeId);
    if (loaded.kind !== "found") {
      if (loaded.kind === "invalid")
        logger.error({ intakeId: item.intakeId, reason: loaded.reason }, "a recorded message can't be read; it is dropped");
      await intake.drop(item.intakeId);
      return;
    }
    // A replay: the answer went out before the record could be marked done (see answer-marks.ts).
    if (loaded.record.state === "running" && (await work.answeredBefore(loaded.record.id))) {
      logger.info({ intakeId: item.intakeId }, "a message's answer was shown already; it is marked done, not answered again");
      await intake.update({ ...loaded.record, state: "done", result: "answered" });
      await checkpoints.remove(loaded.record.id);
      return;
    }
    if (loaded.record.state === "done") return;
    // Nobody here could see it: it is not started, so its record stays unfinished for a retry (or a process that can).
    const { surface } = loaded.record.task.origin;
    if (!presenters.canShow(item.intakeId, surface)) throw new SurfaceUnavailableError(surface, item.intakeId);
    record = { ...loaded.record, state: "running", owner: bootId };
    await intake.update(record);
  }
  localTasks.delete(item.intakeId);
  const task = localTask ?? (record!.task as Task);
  const runId = record ? record.id : newRunId();
  // Built once the run is known to go ahead: a refused message shows no progress at all.
  let shown: RunPresenter | undefined;
  const presenter = () => (shown ??= presenters.presenterFor(item.intakeId, task.origin, task.text));
  try {
    const saved: CheckpointLoad = record ? await checkpoints.load(runId) : { kind: "missing" };
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
      return;
    }
    // A run that already took steps was admitted before.
    const refused = saved.kind === "found" ? undefined : await deps.refusal(task);
    if (refused) {
      deps.sinkFor(task.origin, () => {})({ type: "final", runId, outcome: refused });
      await presenters.refuse(item.intakeId, task.origin, task.text, refused);
      if (record) await intake.update({ ...record, state: "done", result: "refused" });
      return;
    }
    const { sink } = presenter();
    const audited = deps.sinkFor(task.origin, sink);
    const loopDeps = deps.depsFor(task.origin);
    const stop = deps.stops?.watch(runId, task.origin.requester);
    const writer = record ? checkpoints.writer(runId, saved.kind === "found" ? saved : undefined) : UNRECORDED_RUN;
    const hooks = { checkpoint: checkpointHook(writer, runId), signal: stopSignal(signal), stop: stop?.signal };
    const running = observeRun(
      deps.observers,
      logger,
      { runId, origin: task.origin, how: saved.kind === "found" ? "resumed" : "new" },
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
    if (!result) return interrupted(item.intakeId, presenter());
    await conclude(result, presenter(), writer, record);
  } catch (error) {
    if (error instanceof RunInterruptedError) return interrupted(item.intakeId, presenter());
    await presenter().fail(error);
    if (record) await intake.update({ ...record, state: "done", result: "failed" }).catch(() => undefined);
  }
}
