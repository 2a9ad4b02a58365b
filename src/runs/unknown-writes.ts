// A write that was running when the process died (allowed by policy, so no approval step holds
// it) is not in the saved state: the step that called it never completed. It is put back as a
// step of its own whose call ended with "the outcome is unknown", so the model, the live trace
// and the final trace all show it, as they do for an approved write found unfinished.
import type { RunState } from "../agent/run-state.js";
import { callSignature } from "../agent/signature.js";
import type { AgentEvent, CallRecord, ChatMessage, ToolCall } from "../agent/types.js";
import { UNKNOWN_OUTCOME, type LedgerEntry } from "./write-ledger.js";

/** What the model sees for such a call, worded like the ledger's refusal of a second attempt. */
export const UNKNOWN_OUTCOME_OBSERVATION = `Error: ${UNKNOWN_OUTCOME}.`;

/** Pure: the state with one added step holding `entries` (none: the state as it is), and the events that show it. */
export function withUnknownOutcomes(
  state: RunState,
  entries: readonly LedgerEntry[],
): { readonly state: RunState; readonly events: AgentEvent[] } {
  if (entries.length === 0) return { state, events: [] };
  const step = state.steps.length + 1;
  const calls: ToolCall[] = entries.map((entry) => ({ id: entry.callId, name: entry.tool, arguments: entry.args }));
  const records: CallRecord[] = calls.map((call) => ({
    callId: call.id,
    tool: call.name,
    args: call.arguments,
    signature: callSignature(call.name, call.arguments),
    outcome: "error",
    result: UNKNOWN_OUTCOME_OBSERVATION,
    observation: UNKNOWN_OUTCOME_OBSERVATION,
    durationMs: 0,
  }));
  const messages: ChatMessage[] = [
    { role: "assistant", content: null, toolCalls: calls },
    ...records.map((record): ChatMessage => ({ role: "tool", toolCallId: record.callId, content: record.observation })),
  ];
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
    },
    events,
  };
}
