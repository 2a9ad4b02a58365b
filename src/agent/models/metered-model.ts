// The model calls a run makes besides its steps (compacting its context, the guard's summary)
// and the fact extraction after it cost tokens too, and the daily token limits must see them:
// this model hands each reply's tokens to a meter, as the server reported them or else as the
// tokenizer counts the request and the reply (as a step's are counted).
import type { TokenCounter } from "../../tokens/token-counter.js";
import type { Model, ModelReply, ModelRequest, TokenUsage } from "../../contracts/types.js";

/** What one model call used: the server's figure, else the request and the reply counted. */
export function usageOf(request: ModelRequest, reply: ModelReply, counter: TokenCounter): TokenUsage {
  if (reply.usage) return reply.usage;
  const written = [reply.content ?? "", ...reply.toolCalls.map((call) => `${call.name}${call.arguments}`)].join("\n");
  return {
    promptTokens: counter.countMessages(request.messages) + counter.countTools(request.tools),
    completionTokens: counter.countText(written),
  };
}

/**
 * `model`, each reply carrying its usage (counted when the server said none, so the run's records
 * count what the limits count), its tokens handed to `add` (a call that fails used none we can know of).
 */
export function meteredModel(model: Model, counter: TokenCounter, add?: (tokens: number) => void): Model {
  return {
    name: model.name,
    async complete(request, signal) {
      const reply = await model.complete(request, signal);
      const usage = usageOf(request, reply, counter);
      add?.(usage.promptTokens + usage.completionTokens);
      return reply.usage ? reply : { ...reply, usage };
    },
  };
}
