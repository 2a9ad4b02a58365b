// A worker's handling of one recorded message (or a task asked with `ask`), top to bottom:
// load it (a message done, gone or replayed needs nothing more) → refuse it? (access, limits:
// the refusal is the answer) → set it up and run it, or continue it from its checkpoint (the
// model is not asked again for steps already done) → conclude (show, mark, record done).
import { newBoundary } from "../../agent/context/data-blocks.js";
import { continueAgent, runAgent } from "../../agent/loop/loop.js";
import type { LoopResult } from "../../agent/loop/loop-types.js";
import type { RunOutcome } from "../../contracts/types.js";
import { RunInterruptedError, SurfaceUnavailableError } from "../../errors.js";
import type { RunPresenter } from "../api/presenting.js";
import type { OriginUpgrade } from "../api/surface-hooks.js";
import type { Task } from "../api/task.js";
import type { IntakeRecord } from "../intake/intake-store.js";
import { wasDeleted } from "../intake/deletions.js";
import { newRunId } from "../intake/run-id.js";
import type { ItemEnd, WorkItem } from "../queue/work-queue.js";
import { UNRECORDED_RUN, type CheckpointLoad, type CheckpointWriter } from "./checkpoint-store.js";
import { conclude } from "./conclude.js";
import { gatherBurst } from "./bursts.js";
import { settleReplay } from "./replayed-run.js";
import { steeringOf } from "./steering.js";
import { observeRun } from "./run-observer.js";
import { untilAborted, type WorkContext } from "./work-context.js";

/** The part of a run a Stop pressed during the message's own run applies to (a resume's is its decision's call id). */
const RUN_SEGMENT = "message";

const BAD_CHECKPOINT_ANSWER =
  "I could not continue your request after a restart: its saved progress could not be read. Nothing more was done; please ask again.";

/** A message ready to run: its task, its record (none for a task asked with `ask`), and what an earlier process saved of it. */
interface LoadedMessage {
  readonly intakeId: string;
  readonly task: Task;
  readonly record: IntakeRecord | undefined;
  readonly runId: string;
  /** Started before (by a process that died, or whose store failed as it finished): a Stop pressed then still holds. */
  readonly replay: boolean;
  readonly saved: CheckpointLoad;
}

export async function handleMessage(
  work: WorkContext,
  localTasks: Map<string, Task>,
  item: Extract<WorkItem, { kind: "run" }>,
  signal: AbortSignal,
): Promise<ItemEnd> {
  const loaded = await loadMessage(work, localTasks, item);
  if (!loaded) return "done";
  const message = await withBurst(work, loaded, signal);
  // Built once the run is known to go ahead: a refused message shows no progress at all.
  let shown: RunPresenter | undefined;
  const presenter = () =>
    (shown ??= work.deps.shows.presenterFor(item.intakeId, message.task.origin, message.task.text, message.task.reply));
  try {
    if (message.saved.kind === "invalid") return await endUnreadable(work, message, presenter(), message.saved.reason);
    // A run that already took steps was admitted before.
    if (message.saved.kind !== "found" && (await refused(work, message))) return "done";
    const { running, writer } = runMessage(work, message, presenter(), signal);
    const result = await untilAborted(running, signal);
    if (!result) return await work.interrupted(item.intakeId, presenter());
    await conclude(work, result, presenter(), writer, message.record);
    return "done";
  } catch (error) {
    if (error instanceof RunInterruptedError) return await work.interrupted(item.intakeId, presenter());
    await presenter().fail(error);
    if (message.record) await work.intake.update({ ...message.record, state: "done", result: "failed" }).catch(() => undefined);
    return "done";
  }
}

/** The message and its saved progress, with its record taken over by this process; undefined when there is nothing to run. */
async function loadMessage(
  work: WorkContext,
  localTasks: Map<string, Task>,
  item: Extract<WorkItem, { kind: "run" }>,
): Promise<LoadedMessage | undefined> {
  const { intake, checkpoints, bootId, deps } = work;
  const localTask = localTasks.get(item.intakeId);
  localTasks.delete(item.intakeId);
  if (localTask)
    return { intakeId: item.intakeId, task: localTask, record: undefined, runId: newRunId(), replay: false, saved: { kind: "missing" } };
  const loaded = await intake.load(item.intakeId);
  if (loaded.kind !== "found") {
    if (loaded.kind === "invalid")
      deps.logger.error({ intakeId: item.intakeId, reason: loaded.reason }, "a recorded message can't be read; it is dropped");
    await intake.drop(item.intakeId);
    return undefined;
  }
  if (loaded.record.state === "done") {
    // Still listed as unfinished when a kill came between the record's last two writes: the listing goes now.
    await intake.drop(item.intakeId);
    return undefined;
  }
  // A replay whose run showed its outcome already (see replayed-run.ts), or whose question was deleted as it worked.
  if (loaded.record.state === "running" && (await settleReplay(work, loaded.record))) return undefined;
  if (loaded.record.state === "running" && (await wasDeleted(deps.store, item.intakeId))) {
    await intake.update({ ...loaded.record, state: "done", result: "deleted" });
    return undefined;
  }
  // Nobody here could see it: it is not started, so its record stays unfinished for a retry (or a process that can).
  const { surface } = loaded.record.task.origin;
  if (!deps.shows.canShow(item.intakeId, surface)) throw new SurfaceUnavailableError(surface, item.intakeId);
  const record: IntakeRecord = { ...loaded.record, state: "running", owner: bootId };
  await intake.update(record);
  // Before anything is shown: a store that fails here fails the item, and the queue takes it up again later.
  const saved = upgradedCheckpoint(deps.shows.upgrade, await checkpoints.load(record.id));
  return {
    intakeId: item.intakeId,
    task: upgradedTask(deps.shows.upgrade, record.task as Task),
    record,
    runId: record.id,
    replay: loaded.record.state === "running",
    saved,
  };
}

/**
 * A new run of a recorded message asks, as one question, the rest of its person's burst (bursts.ts); the message (and
 * what it took up) leaves its conversation's inbox either way.
 */
async function withBurst(work: WorkContext, message: LoadedMessage, signal: AbortSignal): Promise<LoadedMessage> {
  const { record } = message;
  if (!record) return message;
  const gathered = message.saved.kind === "missing" ? await gatherBurst(work, record, signal) : record;
  await work.inbox.remove(record.task.origin.conversationKey, [record.id, ...(gathered.merged ?? [])]);
  if (gathered === record) return message;
  return { ...message, record: gathered, task: upgradedTask(work.deps.shows.upgrade, gathered.task as Task) };
}

/** A checkpoint that can't be read: the person is told plainly, and the message is done. */
async function endUnreadable(work: WorkContext, message: LoadedMessage, presenter: RunPresenter, reason: string): Promise<ItemEnd> {
  work.deps.logger.error({ runId: message.runId, reason }, "a run's checkpoint failed validation; ending that run with a plain reply");
  const outcome: RunOutcome = {
    status: "answered",
    runId: message.runId,
    answer: BAD_CHECKPOINT_ANSWER,
    steps: [],
    usage: { promptTokens: 0, completionTokens: 0 },
  };
  await presenter.finish(outcome);
  if (message.record) await work.intake.update({ ...message.record, state: "done", result: "failed" });
  await work.checkpoints.remove(message.runId);
  return "done";
}

/** True when governance refuses the message now: the refusal is shown (privately where the surface can) and the message is done. */
async function refused(work: WorkContext, message: LoadedMessage): Promise<boolean> {
  const { deps } = work;
  const { task } = message;
  const refusal = await deps.admission.refusal(task);
  if (!refusal) return false;
  deps.setup.sink(task.origin, () => {})({ type: "final", runId: message.runId, outcome: refusal });
  await deps.shows.refuse(message.intakeId, task.origin, task.text, refusal, task.reply);
  if (message.record) await work.intake.update({ ...message.record, state: "done", result: "refused" });
  return true;
}

/** Sets the run up and starts it (new), or continues it from its checkpoint, watched by the observers and the run's Stop. */
function runMessage(
  work: WorkContext,
  message: LoadedMessage,
  presenter: RunPresenter,
  signal: AbortSignal,
): { readonly running: Promise<LoopResult>; readonly writer: CheckpointWriter } {
  const { deps, checkpoints } = work;
  const { task, runId, saved } = message;
  const sink = deps.setup.sink(task.origin, presenter.sink);
  const loopDeps = deps.setup.loopDeps(task.origin);
  const writer = message.record ? checkpoints.writer(runId, saved.kind === "found" ? saved : undefined) : UNRECORDED_RUN;
  const running = (async () => {
    const stoppedBy = message.replay ? await deps.stops?.stoppedBefore(runId, RUN_SEGMENT) : undefined;
    const stop = deps.stops?.watch(runId, task.origin.requester, RUN_SEGMENT, stoppedBy);
    const hooks = {
      checkpoint: work.checkpointHook(writer, runId),
      signal: work.stopSignal(signal),
      stop: stop?.signal,
      ...(message.record ? { added: steeringOf(work, message.record) } : {}),
    };
    if (message.record) await work.live.started(task.origin.conversationKey, runId, task.origin.requester);
    const how = saved.kind === "found" ? "resumed" : "new";
    // Drawn here, not in the loop: the context's data blocks are made before the loop starts, and its tool results go under the same one.
    const boundary = newBoundary();
    return observeRun(
      deps.observers,
      deps.logger,
      { runId, origin: task.origin, how, setup: { question: task.text, deps: loopDeps } },
      sink,
      (watched) =>
        saved.kind === "found"
          ? work
              .withUnknownWrites(saved.state, watched, (result) => loopDeps.tools.observation(result))
              .then((state) => continueAgent(state, loopDeps, watched, hooks))
          : deps.setup.context(task, boundary).then((context) =>
              runAgent(
                {
                  runId,
                  origin: task.origin,
                  question: task.text,
                  context: context.messages,
                  sources: context.sources,
                  attachments: deps.setup.attachments(task, runId, watched, boundary),
                  boundary,
                },
                loopDeps,
                watched,
                hooks,
              ),
            ),
    ).finally(() => {
      stop?.dispose();
      if (message.record) void work.live.ended(task.origin.conversationKey, runId);
    });
  })();
  return { running, writer };
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
