// What a person sees of a step's reply while the model writes it: its text as it streams (the
// answer, or what the model says before its tool calls) and the restarts that void that text.
// Tool-call fragments are not shown: the trace shows a call once the reply brings it whole.
import type { AgentEvent, ModelDelta } from "../../contracts/types.js";

/** The event a piece of step `step`'s reply makes, if it makes one. */
export function streamedTextEvent(delta: ModelDelta, runId: string, step: number): AgentEvent | undefined {
  switch (delta.kind) {
    case "text":
      return delta.text === "" ? undefined : { type: "text_delta", runId, step, text: delta.text };
    case "restart":
      return { type: "text_restart", runId, step };
    case "tool_call":
      return undefined;
  }
}

/** The `onDelta` of step `step`'s model call: its events go to `emit` in the order the pieces come. */
export function streamedTextRelay(runId: string, step: number, emit: (event: AgentEvent) => void): (delta: ModelDelta) => void {
  return (delta) => {
    const event = streamedTextEvent(delta, runId, step);
    if (event) emit(event);
  };
}
