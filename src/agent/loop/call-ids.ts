// The ids of a run's tool calls. A decision is claimed once per run and call id, so ids must be
// short and unique within the run; a model's own ids can be long or repeated (also across steps).
import type { CallRecord, ChatMessage, ToolCall } from "../../contracts/types.js";

const MAX_CALL_ID_LENGTH = 40;

/** Keeps usable ids, renames the others `call_<step>_<n>`; `seen` holds the run's ids so far and gains the new ones. */
export function normalizeCallIds(calls: readonly ToolCall[], step: number, seen: Set<string>): readonly ToolCall[] {
  return calls.map((call, index) => {
    const usable = call.id.length > 0 && call.id.length <= MAX_CALL_ID_LENGTH && /^[\w.-]+$/.test(call.id) && !seen.has(call.id);
    let id = usable ? call.id : `call_${step}_${index + 1}`;
    for (let suffix = 2; !usable && seen.has(id); suffix++) id = `call_${step}_${index + 1}_${suffix}`;
    seen.add(id);
    return id === call.id ? call : { ...call, id };
  });
}

/** The call ids a run has used so far: its settled calls' and those its messages carry. */
export function knownCallIds(settled: readonly CallRecord[], messages: readonly ChatMessage[]): Set<string> {
  const ids = new Set(settled.map((call) => call.callId));
  for (const message of messages) if (message.role === "assistant") for (const call of message.toolCalls ?? []) ids.add(call.id);
  return ids;
}
