// A chat completion from an OpenAI-compatible server, checked and turned into our ModelReply.
// The reply is untrusted: only what we use is checked, and unknown tool-call kinds are skipped.
// Shared by the whole reply and the streamed one (openai-streamed-reply.ts), so both make the
// same ModelReply of the same answer.
import { z } from "zod";
import { ModelUnavailableError } from "../../errors.js";
import type { ModelReply, TokenUsage, ToolCall } from "../../contracts/types.js";

/** Some local servers send the arguments as an object, not as JSON text. */
export const ToolArguments = z.union([z.string(), z.record(z.string(), z.unknown())]).nullish();

const FunctionCall = z.object({
  id: z.string().nullish(),
  type: z.literal("function").optional(),
  // A call without a name is kept (as ""), so the model is told what was wrong instead of that its reply was empty.
  function: z.object({ name: z.string().nullish(), arguments: ToolArguments }),
});

export const Usage = z.object({
  prompt_tokens: z.number(),
  completion_tokens: z.number(),
  // OpenAI's prompt caching (and servers that copy it) say how much of the prompt came from the cache.
  // A malformed detail costs only the detail, never the reply.
  prompt_tokens_details: z.object({ cached_tokens: z.number().int().nonnegative().nullish() }).nullish().catch(undefined),
});

const CompletionReply = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({ content: z.string().nullish(), tool_calls: z.array(z.unknown()).nullish() }).nullish(),
      }),
    )
    .nullish(),
  usage: Usage.nullish(),
});

/** The failure of a server that answered something else than the chat format (a proxy's page, another API). */
export function notChatFormat(server: string): ModelUnavailableError {
  return new ModelUnavailableError({
    cause: `the server at ${server} did not answer in the OpenAI chat format`,
    fix: "check OPENAI_BASE_URL",
    retryable: false,
  });
}

/** `callNumber` makes the ids of calls the server left without one unique. Throws `notChatFormat`. */
export function toReply(raw: unknown, callNumber: number, server: string): ModelReply {
  const parsed = CompletionReply.safeParse(raw);
  if (!parsed.success) throw notChatFormat(server);
  const message = parsed.data.choices?.[0]?.message;
  const usage = parsed.data.usage;
  return {
    content: message?.content ?? null,
    toolCalls: (message?.tool_calls ?? []).flatMap((entry, index) => toToolCall(entry, fallbackCallId(callNumber, index))),
    ...(usage ? { usage: usageOf(usage) } : {}),
  };
}

/** The id of the `index`th call of a reply whose server sent it without one. */
export function fallbackCallId(callNumber: number, index: number): string {
  return `call_${callNumber}_${index + 1}`;
}

export function usageOf(usage: z.infer<typeof Usage>): TokenUsage {
  const cached = Math.min(usage.prompt_tokens_details?.cached_tokens ?? 0, usage.prompt_tokens);
  return { promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens, ...(cached > 0 ? { cachedTokens: cached } : {}) };
}

/** Arguments as text: raw as the model wrote them, or an object as its JSON. */
export function argumentsText(args: z.infer<typeof ToolArguments>): string {
  const value = args ?? "";
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** Arguments pass through raw; some local servers send an object or leave out the id. */
function toToolCall(entry: unknown, fallbackId: string): ToolCall[] {
  const parsed = FunctionCall.safeParse(entry);
  if (!parsed.success) return [];
  const { id, function: fn } = parsed.data;
  return [{ id: id || fallbackId, name: fn.name ?? "", arguments: argumentsText(fn.arguments) }];
}
