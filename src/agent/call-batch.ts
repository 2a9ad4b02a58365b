// The tool calls of one model reply, taken in order: each passes the repeat and oscillation
// guards first; reads run concurrently, writes one at a time and only with a person's approval.
import { checkOscillation, OSCILLATION_MEMORY } from "./guards/oscillation.js";
import { nextErrorStreak } from "./guards/consecutive-errors.js";
import { checkRepeat, repeatWarning } from "./guards/repeat.js";
import { callSignature } from "./signature.js";
import type { GuardCounters } from "./run-state.js";
import type { PreparedCall, ToolRegistry } from "./tool-registry.js";
import type { AgentEvent, CallOutcome, CallRecord, GuardStop, Tool, ToolCall, ToolContext } from "./types.js";

export type ToolPolicy = (tool: Tool) => "approve" | "allow" | "deny";

export interface BatchContext {
  readonly tools: ToolRegistry;
  readonly policy: ToolPolicy;
  readonly oscillationWindow: number;
  readonly toolContext: ToolContext;
  readonly step: number;
  readonly emit: (event: AgentEvent) => void;
  /** Receives each settled call in order; the caller appends its observation to the messages. */
  readonly settle: (record: CallRecord) => void;
}

export type BatchResult =
  | { readonly kind: "done"; readonly guards: GuardCounters }
  /** The call that tripped and the calls after it were settled as `blocked`. */
  | { readonly kind: "stopped"; readonly guards: GuardCounters; readonly stop: GuardStop }
  /** `calls[0]` is the write that waits for a decision. */
  | { readonly kind: "needs_approval"; readonly guards: GuardCounters; readonly calls: readonly ToolCall[]; readonly args: unknown };

function record(call: ToolCall, signature: string, outcome: CallOutcome, result: string, observation: string, durationMs = 0): CallRecord {
  return { callId: call.id, tool: call.name, args: call.arguments, signature, outcome, result, observation, durationMs };
}

/** A call that will not run: it still gets its answer in the messages and its line in the trace. */
export function blockedRecord(call: ToolCall, reason: string): CallRecord {
  const message = `Not run: ${reason}.`;
  return record(call, callSignature(call.name, call.arguments), "blocked", message, message);
}

export function withOutcome(guards: GuardCounters, item: CallRecord): GuardCounters {
  return { ...guards, errorStreak: nextErrorStreak(guards.errorStreak, item.outcome), lastObservation: item.observation };
}

/** Runs a validated call and returns its record; never rejects. */
export async function runPrepared(prepared: Extract<PreparedCall, { kind: "ready" }>, context: BatchContext): Promise<CallRecord> {
  context.emit({ type: "tool_called", runId: context.toolContext.runId, step: context.step, call: prepared.call });
  const progress = (detail: string) => context.emit({ type: "tool_progress", runId: context.toolContext.runId, step: context.step, call: prepared.call, detail });
  const execution = await context.tools.execute(prepared, { ...context.toolContext, progress });
  const item = record(prepared.call, prepared.signature, execution.outcome, execution.result, context.tools.observation(execution.result), execution.durationMs);
  context.emit({ type: "tool_result", runId: context.toolContext.runId, step: context.step, call: item });
  return item;
}

export async function processCalls(calls: readonly ToolCall[], initial: GuardCounters, context: BatchContext): Promise<BatchResult> {
  let guards = initial;
  let reads: Array<Extract<PreparedCall, { kind: "ready" }>> = [];

  const flushReads = async () => {
    if (reads.length === 0) return;
    const batch = reads;
    reads = [];
    const records = await Promise.all(batch.map((prepared) => runPrepared(prepared, context)));
    for (const item of records) {
      guards = withOutcome(guards, item);
      context.settle(item);
    }
  };
  const settleNow = (item: CallRecord) => {
    context.emit({ type: "tool_result", runId: context.toolContext.runId, step: context.step, call: item });
    guards = withOutcome(guards, item);
    context.settle(item);
  };

  for (const [position, call] of calls.entries()) {
    const prepared = context.tools.prepare(call);
    const repeat = checkRepeat(guards.repeat, prepared.signature, call.name);
    const recent = [...guards.recent, prepared.signature].slice(-OSCILLATION_MEMORY);
    guards = { ...guards, repeat: repeat.state, recent };
    const oscillation = repeat.kind === "trip" ? undefined : checkOscillation(recent, context.oscillationWindow, (signature) => signature.split("#")[0] ?? signature);
    const stop = repeat.kind === "trip" ? repeat.stop : oscillation;
    if (stop) {
      await flushReads();
      for (const unrun of calls.slice(position)) settleNow(blockedRecord(unrun, `the run was stopped by the ${stop.guard} guard`));
      return { kind: "stopped", guards, stop };
    }
    if (repeat.kind === "warn") {
      await flushReads();
      const earlier = guards.lastObservation ?? "(no result)";
      context.emit({ type: "guard_warned", runId: context.toolContext.runId, guard: "repeat", detail: `${call.name} asked again with the same arguments; not run` });
      settleNow(record(call, prepared.signature, "repeated", earlier, `${earlier}\n\n${repeatWarning(call.name)}`));
      continue;
    }
    if (prepared.kind === "rejected") {
      await flushReads();
      settleNow(record(call, prepared.signature, prepared.outcome, prepared.message, prepared.message));
      continue;
    }
    const policy = context.policy(prepared.tool);
    if (policy === "allow" && prepared.tool.effect === "read") {
      reads.push(prepared);
      continue;
    }
    await flushReads();
    if (policy === "allow") {
      const item = await runPrepared(prepared, context);
      guards = withOutcome(guards, item);
      context.settle(item);
    } else if (policy === "deny") {
      const message = `Error: ${call.name} is not allowed by this bot's tool policy, so it was not run. Do not try it again; answer without it.`;
      settleNow(record(call, prepared.signature, "denied", message, message));
    } else {
      return { kind: "needs_approval", guards, calls: calls.slice(position), args: prepared.args };
    }
  }
  await flushReads();
  return { kind: "done", guards };
}
