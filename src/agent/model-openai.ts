// The Model seam over any OpenAI-compatible Chat Completions server (OpenAI, Ollama, vLLM,
// llama.cpp, LM Studio, OpenRouter). The only file that imports `openai`.
//
// Retries are the SDK's own: 408/409/429/5xx, connection errors and timeouts, with
// exponential backoff that honours Retry-After and Retry-After-Ms (openai 6.30.1,
// client.ts retryRequest). Its backoff sleep does not watch the abort signal, so each call
// also races the signal: an abort rejects at once, also between retries.
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError } from "openai";
import type { ChatCompletionCreateParamsNonStreaming, ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { z } from "zod";
import { ModelUnavailableError } from "../errors.js";
import { maskSecrets, type Logger } from "../logger.js";
import type { ChatMessage, Model, ModelReply, ModelRequest, TokenUsage, ToolCall } from "./types.js";

export interface OpenAIModelOptions {
  readonly apiKey: string;
  /** Defaults to OpenAI's own endpoint (the SDK's default). */
  readonly baseUrl?: string;
  readonly model: string;
  /** Per attempt. */
  readonly timeoutMs: number;
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
    maxRetries: options.maxRetries,
    logLevel: "info",
    // The SDK's retry notices ("... failed with status 429 - retrying") become our debug lines.
    logger: {
      error: (message: string) => logger.error(message),
      warn: (message: string) => logger.warn(message),
      info: (message: string) => logger.debug(message),
      debug: () => {},
    },
  });
  const server = withoutCredentials(client.baseURL);
  let callNumber = 0;

  return {
    name: options.model,
    async complete(request: ModelRequest, signal: AbortSignal): Promise<ModelReply> {
      const thisCall = ++callNumber;
      const started = Date.now();
      const log = (status: string, extra: Record<string, unknown> = {}) =>
        logger.debug({ model: options.model, durationMs: Date.now() - started, status, ...extra }, "model call");
      try {
        signal.throwIfAborted();
        const raw = await untilAborted(client.chat.completions.create(toRequestBody(options.model, request), { signal }), signal);
        const reply = toReply(raw, thisCall, server);
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
        const unavailable = error instanceof ModelUnavailableError ? error : toUnavailable(error, { ...options, server });
        log("unavailable", { httpStatus: unavailable.status, reason: unavailable.reason });
        throw unavailable;
      }
    },
  };
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
    case "user":
      return { role: message.role, content: message.content };
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

function toReply(raw: unknown, callNumber: number, server: string): ModelReply {
  const parsed = CompletionReply.safeParse(raw);
  if (!parsed.success) {
    throw new ModelUnavailableError(`the server at ${server} did not answer in the OpenAI chat format: check OPENAI_BASE_URL`);
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

interface FailureContext {
  readonly apiKey: string;
  readonly model: string;
  readonly timeoutMs: number;
  readonly maxRetries: number;
  readonly server: string;
}

/** A reason a person can act on; never the key, even when the server echoes it. */
function toUnavailable(error: unknown, context: FailureContext): ModelUnavailableError {
  const tries = `${context.maxRetries + 1} ${context.maxRetries === 0 ? "try" : "tries"}`;
  if (error instanceof APIConnectionTimeoutError) {
    return new ModelUnavailableError(
      `no reply from ${context.server} within ${context.timeoutMs} ms (${tries}): check the server, or raise OPENAI_TIMEOUT_MS`,
    );
  }
  if (error instanceof APIConnectionError) {
    const code = causeCode(error);
    return new ModelUnavailableError(
      `could not connect to ${context.server}${code ? ` (${code})` : ""}: check OPENAI_BASE_URL and that the server is running`,
    );
  }
  if (error instanceof APIError && typeof error.status === "number") {
    const status = error.status;
    const said = serverMessage(error, context.apiKey);
    const prefix = `${status} from the model server${said}`;
    if (status === 401) return new ModelUnavailableError(`${prefix}: check OPENAI_API_KEY`, status);
    if (status === 403)
      return new ModelUnavailableError(
        `${prefix}: the key may not have access to "${context.model}"; check OPENAI_API_KEY and OPENAI_MODEL`,
        status,
      );
    if (status === 404)
      return new ModelUnavailableError(
        `${prefix}: check OPENAI_MODEL ("${context.model}") and OPENAI_BASE_URL (${context.server}; it usually ends in /v1)`,
        status,
      );
    if (status === 429)
      return new ModelUnavailableError(
        `${prefix} after ${tries}: rate limited or out of quota; wait a little, or check the account's limits`,
        status,
      );
    if (status >= 500) return new ModelUnavailableError(`${prefix} after ${tries}: the server is failing; try again later`, status);
    return new ModelUnavailableError(`${prefix}: the server refused the request`, status);
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ModelUnavailableError(`unexpected failure talking to ${context.server}: ${redact(message, context.apiKey)}`);
}

function serverMessage(error: APIError, apiKey: string): string {
  const body = error.error as { message?: unknown } | undefined;
  const text = typeof body?.message === "string" ? body.message.trim() : "";
  if (text === "") return "";
  const short = text.length > 200 ? `${text.slice(0, 200)}…` : text;
  return ` ("${redact(short, apiKey)}")`;
}

function redact(text: string, apiKey: string): string {
  return maskSecrets(apiKey.length > 0 ? text.split(apiKey).join("[secret]") : text);
}

function causeCode(error: Error): string | undefined {
  for (let cause: unknown = error.cause, depth = 0; cause instanceof Error && depth < 4; cause = cause.cause, depth += 1) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === "string") return code;
  }
  return undefined;
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

/** Settles with `work`, or rejects with the signal's reason as soon as it aborts. */
async function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  let onAbort: () => void = () => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([work, aborted]);
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}
