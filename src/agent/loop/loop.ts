// The guarded agent loop. One step = one model call; tool calls go through the registry and
// the guards; when a guard trips the person still gets a summary. A write that needs a person
// pauses the run and hands back its whole state, to be resumed with the decision.
import { newBoundary } from "../context/data-blocks.js";
import { fileSources } from "../context/file-blocks.js";
import { keepSeen } from "../context/seen-sources.js";
import { ActiveRun } from "./active-run.js";
import type { LoopDeps, LoopResult, Resolution, RunHooks, RunStart, StepEnd, StopSignal } from "./loop-types.js";
import { emptyGuardCounters, type RunState } from "./run-state.js";
import type { ChatMessage, ContentPart, EventSink } from "../../contracts/types.js";
import { RunInterruptedError } from "../../errors.js";

async function drive(run: ActiveRun, hooks: RunHooks | undefined, first?: () => Promise<StepEnd>): Promise<LoopResult> {
  // A checkpoint (after a crash) may hold messages whose taking was not recorded yet.
  if (run.taken.length > 0) await hooks?.added?.taken(run.taken);
  let end = first ? await first() : await run.step();
  while (end.kind === "continue") {
    await hooks?.checkpoint?.(run.snapshot());
    if (hooks?.signal?.aborted) {
      // The step's tokens count now: the run that takes it up goes on from after this step.
      await run.reportUsage();
      throw new RunInterruptedError(run.runId);
    }
    await takeAdded(run, hooks);
    end = await run.step();
  }
  return run.finish(end);
}

/** What the person sent meanwhile joins the run before its next model call: saved in a checkpoint before it counts as taken. */
async function takeAdded(run: ActiveRun, hooks: RunHooks | undefined): Promise<void> {
  const added = hooks?.added;
  if (!added) return;
  const messages = await added.pending(run.taken);
  if (messages.length === 0) return;
  run.add(messages);
  await hooks.checkpoint?.(run.snapshot());
  await added.taken(messages.map((message) => message.id));
}

const QUESTION_SHARE_OF_BUDGET = 0.5;

/** A question of any length is cut without holding the event loop (other conversations go on meanwhile). */
async function boundedQuestion(question: string, deps: LoopDeps): Promise<string> {
  const budget = deps.limits.contextWindow - deps.limits.reservedOutputTokens;
  const cap = Math.floor(budget * QUESTION_SHARE_OF_BUDGET);
  const { text, truncated } = await deps.counter.truncateYielding(question, cap);
  return truncated
    ? `${text}\n…[the message was cut here: it had ${question.length.toLocaleString("en-US")} characters, more than the model's context can hold]`
    : text;
}

/** The attachments, prepared within the run's time: aborted at its deadline or by a Stop. */
async function attachedParts(start: RunStart, deps: LoopDeps, stop: StopSignal | undefined): Promise<readonly ContentPart[]> {
  if (!start.attachments) return [];
  const within = new AbortController();
  const abort = () => within.abort(stop?.reason ?? new Error("run deadline"));
  const timer = setTimeout(abort, deps.limits.runTimeoutMs);
  if (stop?.aborted) abort();
  else stop?.addEventListener("abort", abort, { once: true });
  try {
    return await start.attachments(within.signal);
  } finally {
    clearTimeout(timer);
    stop?.removeEventListener("abort", abort);
  }
}

/** Runs until an answer, a guard's summary, or a pause for approval. Never rejects for model or tool failures. */
export async function runAgent(start: RunStart, deps: LoopDeps, sink: EventSink, hooks?: RunHooks): Promise<LoopResult> {
  const began = performance.now();
  const parts = await attachedParts(start, deps, hooks?.stop);
  const question = await boundedQuestion(start.question, deps);
  const messages: ChatMessage[] = [
    ...start.context,
    // A message of files alone (no text) is its parts alone.
    { role: "user", content: parts.length === 0 ? question : question === "" ? parts : [{ type: "text", text: question }, ...parts] },
  ];
  // Counted here, a slice at a time, so that the run's own counts of them are free.
  await deps.counter.countMessagesYielding(messages);
  const run = new ActiveRun(
    {
      version: 1,
      runId: start.runId,
      origin: start.origin,
      question: start.question,
      messages,
      steps: [],
      guards: emptyGuardCounters,
      usage: { promptTokens: 0, completionTokens: 0 },
      elapsedMs: start.attachments ? performance.now() - began : 0,
      boundary: start.boundary ?? newBoundary(),
      sources: keepSeen([], [...(start.sources ?? []), ...fileSources(parts)]),
    },
    deps,
    sink,
    hooks?.stop,
  );
  // The start is saved too: a crash during the first step continues from here, where a write that step began shows as unfinished.
  await hooks?.checkpoint?.(run.snapshot());
  return drive(run, hooks);
}

/** Continues a paused run with the decision on its waiting call. The state must come from a `paused` result. */
export function resumeAgent(
  state: RunState,
  resolution: Resolution,
  deps: LoopDeps,
  sink: EventSink,
  hooks?: RunHooks,
): Promise<LoopResult> {
  if (!state.pending) throw new Error(`run ${state.runId} is not waiting for a decision`);
  const run = new ActiveRun(state, deps, sink, hooks?.stop);
  return drive(run, hooks, () => run.resolve(resolution));
}

/** Continues a run from a checkpoint (a state between steps): the steps in it are not asked for again. */
export function continueAgent(state: RunState, deps: LoopDeps, sink: EventSink, hooks?: RunHooks): Promise<LoopResult> {
  if (state.pending) throw new Error(`run ${state.runId} waits for a decision; resume it with the decision`);
  return drive(new ActiveRun(state, deps, sink, hooks?.stop), hooks);
}
