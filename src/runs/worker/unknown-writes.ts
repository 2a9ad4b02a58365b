// Why a write is made at most once, whatever the point the process dies at.
//
// A run is saved after each step; a write is recorded in the ledger (write-ledger.ts) before it
// starts and when it ends, under its call id. A crash between a write and its step's checkpoint
// leaves a write the saved state does not show: the restart would ask the model that step again,
// and the model, not knowing, asks for the write again under a new call id, which the ledger
// can't tell from a new write. So before a saved run goes on, every ledger entry of the run
// whose call id the state does not show is put back into the state as a step of its own, with
// its outcome: done → what the write returned or threw (or, for an entry written before results
// were kept, "made; result not kept"); claimed or executing → "the outcome is unknown". The model,
// the live trace and the final trace all show it, as they do for any call.
//
// Why this closes every window: a write's `claimed` entry is stored before it can start, so at
// any crash point the write is either in the saved state (its step was checkpointed) or in the
// ledger, and so in the resumed state. The restored call also counts in the repeat guard as if it
// had just run, so the same write asked for right after is not run again but answered with its
// result. (Checkpointing after each write instead would still leave the window between the
// write's end and that checkpoint, and would need the ledger anyway.) A call the state does show
// keeps its own record; if it is tried again under the same id (an approved write resumed from
// its approval), the ledger answers with its earlier outcome instead of running it.
import { nextErrorStreak } from "../../agent/guards/consecutive-errors.js";
import { checkRepeat } from "../../agent/guards/repeat.js";
import type { RunState } from "../../agent/loop/run-state.js";
import { callSignature } from "../../agent/tools/signature.js";
import type { AgentEvent, CallRecord, ChatMessage, ToolCall } from "../../contracts/types.js";
import { RESULT_NOT_KEPT, UNKNOWN_OUTCOME, type LedgerEntry } from "./write-ledger.js";

/** What the model sees for a write that was running when the process died, worded like the ledger's refusal of a second attempt. */
export const UNKNOWN_OUTCOME_OBSERVATION = `Error: ${UNKNOWN_OUTCOME}.`;

/** Cuts a result to what the model is shown of one (the registry's observation cap). */
export type Observe = (result: string) => string;

function recordOf(entry: LedgerEntry, observe: Observe): CallRecord {
  const signature = callSignature(entry.tool, entry.args);
  const base = { callId: entry.callId, tool: entry.tool, args: entry.args, signature, durationMs: 0 };
  if (entry.state !== "done")
    return { ...base, outcome: "error", result: UNKNOWN_OUTCOME_OBSERVATION, observation: UNKNOWN_OUTCOME_OBSERVATION };
  if (!entry.ended) return { ...base, outcome: "ok", result: RESULT_NOT_KEPT, observation: RESULT_NOT_KEPT };
  const result = entry.ended.outcome === "ok" ? entry.ended.text : `Error: ${entry.ended.text}`;
  return { ...base, outcome: entry.ended.outcome, result, observation: observe(result) };
}

/**
 * Pure: the state with one added step holding `entries` (the ledger's entries the state does not
 * show; none: the state as it is), and the events that show it.
 */
export function withUnknownOutcomes(
  state: RunState,
  entries: readonly LedgerEntry[],
  observe: Observe = (result) => result,
): { readonly state: RunState; readonly events: AgentEvent[] } {
  if (entries.length === 0) return { state, events: [] };
  const step = state.steps.length + 1;
  const records = entries.map((entry) => recordOf(entry, observe));
  const calls: ToolCall[] = records.map((record) => ({ id: record.callId, name: record.tool, arguments: record.args }));
  const messages: ChatMessage[] = [
    { role: "assistant", content: null, toolCalls: calls },
    ...records.map((record): ChatMessage => ({ role: "tool", toolCallId: record.callId, content: record.observation })),
  ];
  let guards = state.guards;
  for (const record of records)
    guards = {
      ...guards,
      repeat: checkRepeat(guards.repeat, record.signature, record.tool).state,
      errorStreak: nextErrorStreak(guards.errorStreak, record.outcome),
      lastObservation: record.observation,
    };
  const startedAt = Math.min(...entries.map((entry) => entry.at));
  const events: AgentEvent[] = calls.flatMap((call, index): AgentEvent[] => [
    { type: "tool_called", runId: state.runId, step, call },
    { type: "tool_result", runId: state.runId, step, call: records[index] as CallRecord },
  ]);
  return {
    state: {
      ...state,
      messages: [...state.messages, ...messages],
      steps: [...state.steps, { index: step, startedAt, durationMs: 0, text: null, calls: records }],
      guards,
    },
    events,
  };
}
