// The Model seam over any OpenAI-compatible Chat Completions server (OpenAI, Ollama, vLLM,
// llama.cpp, LM Studio, OpenRouter). With model-failure.ts (its errors), the only file that
// imports `openai`.
//
// Retries are ours, with the SDK's rules (model-failure.ts: what is retried and how long to
// wait), because the SDK tells its caller nothing between tries: each retry is announced
// (request.onRetry) so a person waiting sees "model not answering, retry 2 of 3", and the
// wait between tries ends at once when the signal aborts.
import { setTimeout as sleep } from "node:timers/promises";
import OpenAI from "openai";
import type {
  ChatCompletionContentPart,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
} from "openai/resources/chat/completions";
import { z } from "zod";
import { ModelUnavailableError, type ModelFailure } from "../../errors.js";
import type { Logger } from "../../logger.js";
import { describeModelError, retryDelayMs } from "./model-failure.js";
import type { ChatMessage, ContentPart, Model, ModelReply, ModelRequest, TokenUsage, ToolCall } from "../../contracts/types.js";

export interface OpenAIModelOptions {
  readonly apiKey: string;
  /** Defaults to OpenAI's own endpoint (the SDK's default). */
  readonly baseUrl?: string;
  readonly model: string;
  /** Per try. */
  readonly timeoutMs: number;
  /** Tries after the first one, for failures worth retrying. */
  readonly maxRetries: number;
  readonly logger: Logger;
}

// The reply is untrusted: only what we use is checked, and unknown tool-call kinds are skipped.
const FunctionCall = z.object({
  id: z.string().nullish(),
  type: z.literal("function").optional(),
  // A call without a name is kept (as ""), so the model is told what was wrong instead of that its reply was empty.
  function: z.object({ name: z.string().nullish(), arguments: z.union([z.string(), z.record(z.string(), z.unknown())]).nullish() }),
});

const CompletionReply = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({ content: z.string().nullish(), tool_calls: z.array(z.unknown()).nullish() }).nullish(),
      }),
    )
    .nullish(),
  usage: z
    .object({
      prompt_tokens: z.number(),
      completion_tokens: z.number(),
      // OpenAI's prompt caching (and servers that copy it) say how much of the prompt came from the cache.
      // A malformed detail costs only the detail, never the reply.
      prompt_tokens_details: z.object({ cached_tokens: z.number().int().nonnegative().nullish() }).nullish().catch(undefined),
    })
    .nullish(),
});

export function createOpenAIModel(options: OpenAIModelOptions): Model {
  const logger = options.logger.child({ component: "model" });
  const client = new OpenAI({
    apiKey: options.apiKey,
    baseURL: options.baseUrl,
    timeout: options.timeoutMs,
    maxRetries: 0,
    logLevel: "info",
    // The SDK's notices ("... failed with status 429") become our debug lines.
    logger: {
      error: (message: string) => logger.error(message),
      warn: (message: string) => logger.warn(message),
      info: (message: string) => logger.debug(message),
      debug: () => {},
    },
  });
  const server = withoutCredentials(client.baseURL);
  const context = { server, model: options.model, timeoutMs: options.timeoutMs, apiKey: options.apiKey };
  let callNumber = 0;

  /** One reply, or the failure of the last try; each retry is announced first. */
  async function tryUntilDone(request: ModelRequest, signal: AbortSignal): Promise<unknown> {
    const body = toRequestBody(options.model, request);
    for (let retry = 1; ; retry++) {
      try {
        return await client.chat.completions.create(body, { signal });
      } catch (error) {
        if (signal.aborted) throw error;
        const failure = describeModelError(error, context);
        if (!failure.retryable || retry > options.maxRetries) throw new ModelUnavailableError(afterTries(failure, retry));
        const waitMs = retryDelayMs(error, retry);
        logger.debug({ model: options.model, retry, of: options.maxRetries, waitMs, cause: failure.cause }, "model call retrying");
        request.onRetry?.({ retry, of: options.maxRetries, cause: failure.cause, waitMs });
        await sleep(waitMs, undefined, { signal });
      }
    }
  }

  return {
    name: options.model,
    async complete(request: ModelRequest, signal: AbortSignal): Promise<ModelReply> {
      const thisCall = ++callNumber;
      const started = Date.now();
      const log = (status: string, extra: Record<string, unknown> = {}) =>
        logger.debug({ model: options.model, durationMs: Date.now() - started, status, ...extra }, "model call");
      try {
        signal.throwIfAborted();
        const reply = toReply(await tryUntilDone(request, signal), thisCall, server);
        log("ok", {
          promptTokens: reply.usage?.promptTokens,
          completionTokens: reply.usage?.completionTokens,
          toolCalls: reply.toolCalls.length,
        });
        return reply;
      } catch (error) {
        if (signal.aborted) {
          log("aborted");
          throw signal.reason;
        }
        const unavailable = error instanceof ModelUnavailableError ? error : new ModelUnavailableError(describeModelError(error, context));
        log("unavailable", { httpStatus: unavailable.status, reason: unavailable.reason });
        throw unavailable;
      }
    },
  };
}

/** A failure that was retried says how often it was tried. */
function afterTries(failure: ModelFailure, tries: number): ModelFailure {
  return tries === 1 ? failure : { ...failure, cause: `${failure.cause}, after ${tries} tries` };
}

function toRequestBody(model: string, request: ModelRequest): ChatCompletionCreateParamsNonStreaming {
  return {
    model,
    messages: request.messages.map(toOpenAIMessage),
    ...(request.tools.length > 0
      ? {
          tools: request.tools.map((tool) => ({
            type: "function" as const,
            function: { name: tool.name, description: tool.description, parameters: tool.parameters },
          })),
        }
      : {}),
    ...(request.responseFormat === "json_object" ? { response_format: { type: "json_object" as const } } : {}),
  };
}

function toOpenAIMessage(message: ChatMessage): ChatCompletionMessageParam {
  switch (message.role) {
    case "system":
      return { role: "system", content: message.content };
    case "user":
      return { role: "user", content: typeof message.content === "string" ? message.content : message.content.map(toOpenAIPart) };
    case "tool":
      return { role: "tool", tool_call_id: message.toolCallId, content: message.content };
    case "assistant":
      // OpenAI rejects an empty tool_calls array, so it is sent only when there are calls.
      return message.toolCalls && message.toolCalls.length > 0
        ? {
            role: "assistant",
            content: message.content,
            tool_calls: message.toolCalls.map((call) => ({
              id: call.id,
              type: "function" as const,
              function: { name: call.name, arguments: call.arguments },
            })),
          }
        : { role: "assistant", content: message.content };
  }
}

/**
 * An image goes as a data URL (`detail: auto`: the server picks; the token guard counts high detail, the
 * upper bound). One still stored (not resolved before the call, see src/files/stored-images.ts) goes as a note.
 */
function toOpenAIPart(part: ContentPart): ChatCompletionContentPart {
  if (part.type !== "image") return { type: "text", text: part.text };
  if ("data" in part.source)
    return { type: "image_url", image_url: { url: `data:${part.mime};base64,${part.source.data}`, detail: "auto" } };
  return { type: "text", text: `[image "${part.file.name}" could not be loaded for this request]` };
}

function toReply(raw: unknown, callNumber: number, server: string): ModelReply {
  const parsed = CompletionReply.safeParse(raw);
  if (!parsed.success) {
    throw new ModelUnavailableError({
      cause: `the server at ${server} did not answer in the OpenAI chat format`,
      fix: "check OPENAI_BASE_URL",
      retryable: false,
    });
  }
  const message = parsed.data.choices?.[0]?.message;
  const usage = parsed.data.usage;
  return {
    content: message?.content ?? null,
    toolCalls: (message?.tool_calls ?? []).flatMap((entry, index) => toToolCall(entry, `call_${callNumber}_${index + 1}`)),
    ...(usage ? { usage: usageOf(usage) } : {}),
  };
}

function usageOf(usage: NonNullable<z.infer<typeof CompletionReply>["usage"]>): TokenUsage {
  const cached = Math.min(usage.prompt_tokens_details?.cached_tokens ?? 0, usage.prompt_tokens);
  return { promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens, ...(cached > 0 ? { cachedTokens: cached } : {}) };
}

/** Arguments pass through raw; some local servers send an object or leave out the id. */
function toToolCall(entry: unknown, fallbackId: string): ToolCall[] {
  const parsed = FunctionCall.safeParse(entry);
  if (!parsed.success) return [];
  const { id, function: fn } = parsed.data;
  const args = fn.arguments ?? "";
  return [{ id: id || fallbackId, name: fn.name ?? "", arguments: typeof args === "string" ? args : JSON.stringify(args) }];
}

function withoutCredentials(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = "";
    parsed.password = "";
    return parsed.toString().replace(/\/$/, "");
  } catch {
    return "the configured OPENAI_BASE_URL";
  }
}
