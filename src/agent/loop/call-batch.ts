// The tool calls of one model reply, taken in order: each passes the repeat and oscillation
// guards first; reads run concurrently, writes one at a time and only with a person's approval
// or the tool policy's. A write that started runs to its end under the run's deadline alone (a
// Stop does not cut it short, so its real outcome is reported); after a Stop none starts.
import { checkOscillation, oscillationMemory } from "../guards/oscillation.js";
import { nextErrorStreak } from "../guards/consecutive-errors.js";
import { checkRepeat, repeatWarning } from "../guards/repeat.js";
import { resultAsData, resultSource } from "../tools/result-source.js";
import { callSignature } from "../tools/signature.js";
import type { GuardCounters } from "./run-state.js";
import type { ToolPolicy } from "../tools/tool-policy.js";
import type { PreparedCall, ToolRegistry } from "../tools/tool-registry.js";
import type { CallAsker } from "./person-questions.js";
import type { SourcedText } from "../../contracts/provenance.js";
import type { AgentEvent, CallOutcome, CallRecord, FormNote, GuardStop, ToolCall, ToolContext } from "../../contracts/types.js";

export interface BatchContext {
  readonly tools: ToolRegistry;
  readonly policy: ToolPolicy;
  readonly oscillationWindow: number;
  readonly toolContext: ToolContext;
  readonly step: number;
  /** The run's data-block boundary: a tool's result reaches the model as data under it. */
  readonly boundary: string;
  readonly emit: (event: AgentEvent) => void;
  /** The signal a write runs under once it started: the run's deadline alone (bounded by it and the tool's timeout). */
  readonly writeSignal: () => AbortSignal;
  /** Receives each tool's result as the model reads it, with its source: what a later write may copy. */
  readonly seen: (text: SourcedText) => void;
  /**
   * Whether a write's arguments came from content someone other than the requester wrote: such a
   * write is asked about (its card says where they came from) even where the policy runs it without asking.
   */
  readonly fromOthers?: (args: unknown) => boolean;
  /** Receives each settled call in order; the caller appends its observation to the messages. */
  readonly settle: (record: CallRecord) => void;
  /** How a call's tool asks the requester; absent where nobody can be asked. */
  readonly asker?: CallAsker;
}

/** Reads of one reply run concurrently, at most this many at a time (a reply may hold hundreds of calls). */
export const READ_CONCURRENCY = 8;

export type BatchResult =
  | { readonly kind: "done"; readonly guards: GuardCounters }
  /** The call that tripped and the calls after it were settled as `blocked`. */
  | { readonly kind: "stopped"; readonly guards: GuardCounters; readonly stop: GuardStop }
  /** `calls[0]` is the write that waits for a decision, or (`connect`: the server) the call that waits for the person to connect it. */
  | {
      readonly kind: "needs_approval";
      readonly guards: GuardCounters;
      readonly calls: readonly ToolCall[];
      readonly args: unknown;
      readonly connect?: string;
    };

export function callRecord(
  call: ToolCall,
  signature: string,
  outcome: CallOutcome,
  result: string,
  observation: string,
  durationMs = 0,
): CallRecord {
  return { callId: call.id, tool: call.name, args: call.arguments, signature, outcome, result, observation, durationMs };
}

/** A call that will not run: it still gets its answer in the messages and its line in the trace. */
export function blockedRecord(call: ToolCall, reason: string): CallRecord {
  const message = `Not run: ${reason}.`;
  return callRecord(call, callSignature(call.name, call.arguments), "blocked", message, message);
}

/** A call the registry refused (unknown tool, invalid arguments); its message goes through the observation cap like any result. */
export function rejectedRecord(prepared: Extract<PreparedCall, { kind: "rejected" }>, tools: ToolRegistry): CallRecord {
  return callRecord(prepared.call, prepared.signature, prepared.outcome, prepared.message, tools.observation(prepared.message));
}

/** A call TOOL_POLICY does not allow. */
export function policyDeniedRecord(call: ToolCall, signature: string): CallRecord {
  const message = `Error: ${call.name} is not allowed by this bot's tool policy, so it was not run. Do not try it again; answer without it.`;
  return callRecord(call, signature, "denied", message, message);
}

function withOutcome(guards: GuardCounters, item: CallRecord): GuardCounters {
  return { ...guards, errorStreak: nextErrorStreak(guards.errorStreak, item.outcome), lastObservation: item.observation };
}

/**
 * The one way a call's record enters the run: counted in the guards, then settled. A call that
 * ran reported its result when it finished (runPrepared); one that did not run is reported here.
 */
export function settleCall(guards: GuardCounters, item: CallRecord, context: BatchContext, ran: boolean): GuardCounters {
  if (!ran) context.emit({ type: "tool_result", runId: context.toolContext.runId, step: context.step, call: item });
  const next = withOutcome(guards, item);
  context.settle(item);
  return next;
}

/** Like Promise.all over `items`, with at most `limit` of them in flight; results in order. */
async function mapLimited<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  if (items.length <= limit) return Promise.all(items.map(work));
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** The call's progress reporter (built by a function, not inline, so a step makes no more closures than it needs). */
function progressOf(call: ToolCall, context: BatchContext): (detail: string) => void {
  return (detail) => context.emit({ type: "tool_progress", runId: context.toolContext.runId, step: context.step, call, detail });
}

/** Runs the reads gathered so far (concurrently, bounded) and settles them in order; the guards after them. */
async function settleReads(
  reads: ReadonlyArray<Extract<PreparedCall, { kind: "ready" }>>,
  guards: GuardCounters,
  context: BatchContext,
): Promise<GuardCounters> {
  let next = guards;
  for (const item of await mapLimited(reads, READ_CONCURRENCY, (prepared) => runPrepared(prepared, context))) {
    next = settleCall(next, item, context, true);
  }
  return next;
}

/** A write not started yet when the run was stopped (or its time ran out) keeps the run's signal: the registry then does not start it. */
function writeContext(context: BatchContext): BatchContext {
  if (context.toolContext.signal.aborted) return context;
  return { ...context, toolContext: { ...context.toolContext, signal: context.writeSignal() } };
}

/** Runs a validated call and returns its record; never rejects. */
export async function runPrepared(prepared: Extract<PreparedCall, { kind: "ready" }>, context: BatchContext): Promise<CallRecord> {
  context.emit({ type: "tool_called", runId: context.toolContext.runId, step: context.step, call: prepared.call });
  const forms: FormNote[] = [];
  const { asker } = context;
  const signal = context.toolContext.signal;
  const toolContext: ToolContext = {
    ...context.toolContext,
    progress: progressOf(prepared.call, context),
    ...(asker
      ? {
          ask: async (question, withdrawn) => {
            const { answer, note } = await asker(question, prepared.call.id, signal, withdrawn);
            forms.push(note);
            return answer;
          },
        }
      : {}),
  };
  const execution = await context.tools.execute(prepared, toolContext);
  const source = resultSource(prepared.tool, prepared.args);
  const text = context.tools.observation(execution.result);
  context.seen({ source, text });
  const observation = resultAsData(text, source, prepared.tool, context.boundary);
  const made = {
    ...callRecord(prepared.call, prepared.signature, execution.outcome, execution.result, observation, execution.durationMs),
    source,
  };
  const record = forms.length > 0 ? { ...made, forms } : made;
  const item = execution.files ? { ...record, files: execution.files } : record;
  context.emit({ type: "tool_result", runId: context.toolContext.runId, step: context.step, call: item });
  return item;
}

/** The server the person must connect before this call can run; a check that fails lets the call run (and fail with its reason). */
async function connectionNeeded(prepared: Extract<PreparedCall, { kind: "ready" }>, context: BatchContext): Promise<string | undefined> {
  return prepared.tool.needsConnection?.(context.toolContext).catch(() => undefined);
}

export async function processCalls(calls: readonly ToolCall[], initial: GuardCounters, context: BatchContext): Promise<BatchResult> {
  let guards = initial;
  // Reads wait here until a call that is not a read (or the end) needs the earlier ones settled first.
  const reads: Array<Extract<PreparedCall, { kind: "ready" }>> = [];

  for (const [position, call] of calls.entries()) {
    const prepared = context.tools.prepare(call);
    // A malformed or unknown call is a failure for the error streak, not a repeat: it did nothing to repeat.
    if (prepared.kind === "rejected") {
      if (reads.length > 0) guards = await settleReads(reads.splice(0), guards, context);
      guards = settleCall(guards, rejectedRecord(prepared, context.tools), context, false);
      continue;
    }
    // A call that acts as the person waits for them to connect its server first (a denied one is denied all the same):
    // before the repeat guard, so a call taken again because its server asked for a new sign-in is not a repeat.
    const connect = context.policy(prepared.tool) === "denied" ? undefined : await connectionNeeded(prepared, context);
    if (connect) {
      if (reads.length > 0) guards = await settleReads(reads.splice(0), guards, context);
      return { kind: "needs_approval", guards, calls: calls.slice(position), args: prepared.args, connect };
    }
    const repeat = checkRepeat(guards.repeat, prepared.signature, call.name);
    const recent = [...guards.recent, prepared.signature].slice(-oscillationMemory(context.oscillationWindow));
    guards = { ...guards, repeat: repeat.state, recent };
    const oscillation =
      repeat.kind === "trip"
        ? undefined
        : checkOscillation(recent, context.oscillationWindow, (signature) => signature.split("#")[0] ?? signature);
    const stop = repeat.kind === "trip" ? repeat.stop : oscillation;
    if (stop) {
      if (reads.length > 0) guards = await settleReads(reads.splice(0), guards, context);
      for (const unrun of calls.slice(position))
        guards = settleCall(guards, blockedRecord(unrun, `the run was stopped by the ${stop.guard} guard`), context, false);
      return { kind: "stopped", guards, stop };
    }
    if (repeat.kind === "warn") {
      if (reads.length > 0) guards = await settleReads(reads.splice(0), guards, context);
      const earlier = guards.lastObservation ?? "(no result)";
      context.emit({
        type: "guard_warned",
        runId: context.toolContext.runId,
        guard: "repeat",
        detail: `${call.name} asked again with the same arguments; not run`,
      });
      guards = settleCall(
        guards,
        callRecord(call, prepared.signature, "repeated", earlier, `${earlier}\n\n${repeatWarning(call.name)}`),
        context,
        false,
      );
      continue;
    }
    const effect = context.policy(prepared.tool);
    if (effect === "read") {
      reads.push(prepared);
      continue;
    }
    if (reads.length > 0) guards = await settleReads(reads.splice(0), guards, context);
    if (effect === "runs without asking" && !context.fromOthers?.(prepared.args))
      guards = settleCall(guards, await runPrepared(prepared, writeContext(context)), context, true);
    else if (effect === "denied") guards = settleCall(guards, policyDeniedRecord(call, prepared.signature), context, false);
    else return { kind: "needs_approval", guards, calls: calls.slice(position), args: prepared.args };
  }
  if (reads.length > 0) guards = await settleReads(reads.splice(0), guards, context);
  return { kind: "done", guards };
}
