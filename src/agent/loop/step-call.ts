// One step's model call: the request (its messages and tools, the run's deadline, and how the
// call tells what happens meanwhile: its text as it streams, each retry and each move to another
// endpoint is an event as it happens) and what the step record keeps of the call once it answered.
import type {
  AgentEvent,
  ChatMessage,
  ModelReply,
  ModelRequest,
  ModelSwitch,
  StepRecord,
  ToolCall,
  ToolSchema,
} from "../../contracts/types.js";
import { streamedTextRelay } from "./streamed-text.js";

/** What a step record keeps of its model call besides the text and the calls. */
export type StepMeta = Pick<StepRecord, "usage" | "endpoint" | "switches">;

/** The meta of a step kept elsewhere (a step waiting for approval), without the fields it lacks. */
export function stepMetaOf({ usage, endpoint, switches }: StepMeta): StepMeta {
  return { ...(usage ? { usage } : {}), ...(endpoint ? { endpoint } : {}), ...(switches ? { switches } : {}) };
}

export interface StepCall {
  readonly request: ModelRequest;
  /** What the step record keeps of the call that gave `reply`. */
  meta(reply: ModelReply): StepMeta;
  /** The event that says what the model replied (`toolCalls` with the ids the run uses). */
  replied(reply: ModelReply, toolCalls: readonly ToolCall[], durationMs: number): AgentEvent;
}

export interface StepCallParts {
  readonly runId: string;
  readonly step: number;
  readonly messages: readonly ChatMessage[];
  readonly tools: readonly ToolSchema[];
  readonly emit: (event: AgentEvent) => void;
  /** What is left of the run's time. */
  readonly remainingMs: number;
  readonly fitWindow: NonNullable<ModelRequest["fitWindow"]>;
}

export function stepCall(parts: StepCallParts): StepCall {
  const { runId, step, emit } = parts;
  const switches: ModelSwitch[] = [];
  return {
    request: {
      messages: parts.messages,
      tools: parts.tools,
      onRetry: (retry) => emit({ type: "model_retrying", runId, step, ...retry }),
      onDelta: streamedTextRelay(runId, step, emit),
      onSwitch: (change) => {
        switches.push(change);
        emit({ type: "model_switched", runId, step, ...change });
      },
      deadline: Date.now() + parts.remainingMs,
      fitWindow: parts.fitWindow,
    },
    meta: (reply) => stepMetaOf({ usage: reply.usage, endpoint: reply.endpoint, switches: switches.length > 0 ? switches : undefined }),
    replied: (reply, toolCalls, durationMs) => ({
      type: "model_replied",
      runId,
      step,
      text: reply.content,
      toolCalls,
      usage: reply.usage,
      durationMs,
      ...(reply.endpoint ? { endpoint: reply.endpoint } : {}),
    }),
  };
}
