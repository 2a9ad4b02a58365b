// The events a streaming run sends its presenter, built for tests that drive a run view directly
// (the loop's own emission of text_delta / text_restart is another part's work), and the
// outcomes that end it.
import type { AgentEvent, CallRecord, GuardStop, RunOutcome, ToolCall } from "../../src/contracts/types.js";

export type Answered = Extract<RunOutcome, { status: "answered" }>;

export const started = (runId: string, step: number): AgentEvent => ({ type: "step_started", runId, step });
export const delta = (runId: string, step: number, text: string): AgentEvent => ({ type: "text_delta", runId, step, text });
export const restart = (runId: string, step: number): AgentEvent => ({ type: "text_restart", runId, step });

/** The model's reply to a step: its text, and the tools it calls. */
export const replied = (runId: string, step: number, text: string | null, toolCalls: readonly ToolCall[] = []): AgentEvent => ({
  type: "model_replied",
  runId,
  step,
  text,
  toolCalls,
});

/** A tool call of a step, from the model's ask to its result: the events a run sends for it. */
export function toolRun(runId: string, step: number, call: ToolCall, result: string): AgentEvent[] {
  const record: CallRecord = {
    callId: call.id,
    tool: call.name,
    args: call.arguments,
    signature: call.name,
    outcome: "ok",
    result,
    observation: result,
    durationMs: 5,
  };
  return [
    { type: "tool_called", runId, step, call },
    { type: "tool_result", runId, step, call: record },
  ];
}

/** `text` as a model streams it: word by word, each with the space before it. */
export function wordsOf(text: string): string[] {
  return text.match(/\s*\S+/g) ?? [];
}

export function answered(runId: string, answer: string, stop?: GuardStop): Answered {
  return { status: "answered", runId, answer, steps: [], usage: { promptTokens: 0, completionTokens: 0 }, ...(stop ? { stop } : {}) };
}
