// The model calls a run makes besides its steps (compacting its context, the guard's summary)
// and the fact extraction after it cost tokens too, and the daily token limits must see them:
// this model hands each reply's tokens to a meter, as the server reported them or else as the
// tokenizer counts the request and the reply (as a step's are counted).
import type { TokenCounter } from "../../tokens/token-counter.js";
import type { Model, ModelReply, ModelRequest } from "../../contracts/types.js";

/** What one model call used: the server's figure, else the request and the reply counted. */
export function tokensOf(request: ModelRequest, reply: ModelReply, counter: TokenCounter): number {
  if (reply.usage) return reply.usage.promptTokens + reply.usage.completionTokens;
  const written = [reply.content ?? "", ...reply.toolCalls.map((call) => `${call.name}${call.arguments}`)].join("\n");
  return counter.countMessages(request.messages) + counter.countTools(request.tools) + counter.countText(written);
}

/** `model`, with the tokens of every reply handed to `add` (a call that fails used none we can know of). */
export function meteredModel(model: Model, counter: TokenCounter, add: (tokens: number) => void): Model {
  return {
    name: model.name,
    async complete(request, signal) {
      const reply = await model.complete(request, signal);
      add(tokensOf(request, reply, counter));
      return reply;
    },
  };
}
