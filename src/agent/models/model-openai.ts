// The Model seam over any OpenAI-compatible Chat Completions server (OpenAI, Ollama, vLLM,
// llama.cpp, LM Studio, OpenRouter). With model-failure.ts (its errors), the only file that
// imports `openai`.
//
// Retries are ours, with the SDK's rules (model-failure.ts: what is retried and how long to
// wait), because the SDK tells its caller nothing between tries: each retry is announced
// (request.onRetry) so a person waiting sees "model not answering, retry 2 of 3", and the
// wait between tries ends at once when the signal aborts.
//
// A request with `onDelta` is streamed (`stream: true`, usage in the last chunk) through the
// SDK's own server-sent-event stream; its chunks add up to the same reply (openai-streamed-reply.ts).
// A stream that sends nothing for `streamIdleMs` is a failed try like a timeout, and a try that
// fails after streaming some is retried after a restart. A server that refuses `stream` is asked
// without it from then on; its whole answer is still told as one piece before the reply returns.
import { setTimeout as sleep } from "node:timers/promises";
import OpenAI from "openai";
import type {
  ChatCompletionContentPart,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
} from "openai/resources/chat/completions";
import { ModelUnavailableError, type ModelFailure } from "../../errors.js";
import type { Logger } from "../../logger.js";
import { describeModelError, describeStreamError, refusedStreaming, retryDelayMs, type ModelFailureContext } from "./model-failure.js";
import { toReply } from "./openai-reply.js";
import { StreamedReply } from "./openai-streamed-reply.js";
import { toldAsStream } from "./reply-deltas.js";
import type { ChatMessage, ContentPart, Model, ModelReply, ModelRequest } from "../../contracts/types.js";

export interface OpenAIModelOptions {
  readonly apiKey: string;
  /** Defaults to OpenAI's own endpoint (the SDK's default). */
  readonly baseUrl?: string;
  readonly model: string;
  /** Per try, until the server starts answering. */
  readonly timeoutMs: number;
  /** A streamed answer that sends nothing for this long is a failed try. */
  readonly streamIdleMs: number;
  /** Tries after the first one, for failures worth retrying. */
  readonly maxRetries: number;
  readonly logger: Logger;
}

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
  const context: ModelFailureContext = { server, model: options.model, timeoutMs: options.timeoutMs, apiKey: options.apiKey };
  let callNumber = 0;
  /** Until the server refuses `stream` once: then it is asked without, for the life of this client. */
  let streams = true;

  /** One try: streamed when the caller asked for pieces and the server streams, else whole (told as one piece). */
  async function tryOnce(
    body: ChatCompletionCreateParamsNonStreaming,
    request: ModelRequest,
    pieces: StreamedReply | undefined,
    signal: AbortSignal,
    thisCall: number,
  ): Promise<ModelReply> {
    if (pieces && streams) {
      const streamed = await streamOnce(body, pieces, signal);
      if (streamed) return streamed;
      refuseStreams("it answered a stream request with no stream");
    }
    return toldAsStream(toReply(await client.chat.completions.create(body, { signal }), thisCall, server), request.onDelta);
  }

  function refuseStreams(why: string): void {
    streams = false;
    logger.info({ model: options.model, server, why }, "the model server does not stream; asking it without streaming from now on");
  }

  /**
   * The reply of one streamed try; undefined when the server sent no chunk (it can't stream). Its
   * own controller ends the request on the caller's abort or when the stream stalls.
   */
  async function streamOnce(
    body: ChatCompletionCreateParamsNonStreaming,
    pieces: StreamedReply,
    signal: AbortSignal,
  ): Promise<ModelReply | undefined> {
    const own = new AbortController();
    const abort = () => own.abort(signal.reason);
    signal.addEventListener("abort", abort, { once: true });
    let idle: NodeJS.Timeout | undefined;
    try {
      const stream = await client.chat.completions.create(
        { ...body, stream: true, stream_options: { include_usage: true } },
        { signal: own.signal },
      );
      idle = setTimeout(() => own.abort(), options.streamIdleMs);
      try {
        for await (const chunk of stream) {
          idle.refresh();
          pieces.add(chunk);
        }
      } catch (error) {
        if (error instanceof ModelUnavailableError) throw error;
        throw new ModelUnavailableError(describeStreamError(error, context));
      }
      // An aborted stream ends quietly (the SDK's way): who aborted it decides what that was.
      signal.throwIfAborted();
      if (own.signal.aborted) throw new ModelUnavailableError(stalled(server, options.streamIdleMs));
      return pieces.reply();
    } finally {
      clearTimeout(idle);
      signal.removeEventListener("abort", abort);
    }
  }

  /** One reply, or the failure of the last try; each retry is announced first (after a restart when the failed try streamed some). */
  async function tryUntilDone(request: ModelRequest, signal: AbortSignal, thisCall: number): Promise<ModelReply> {
    const body = toRequestBody(options.model, request);
    const onDelta = request.onDelta;
    for (let retry = 1; ; ) {
      const pieces = onDelta ? new StreamedReply(onDelta, thisCall, server) : undefined;
      try {
        return await tryOnce(body, request, pieces, signal, thisCall);
      } catch (error) {
        if (signal.aborted) throw error;
        if (pieces && streams && !pieces.streamedAny && refusedStreaming(error)) {
          refuseStreams(describeModelError(error, context).cause);
          continue;
        }
        const failure = error instanceof ModelUnavailableError ? error.failure : describeModelError(error, context);
        if (!failure.retryable || retry > options.maxRetries) throw new ModelUnavailableError(afterTries(failure, retry));
        const waitMs = retryDelayMs(error, retry);
        logger.debug({ model: options.model, retry, of: options.maxRetries, waitMs, cause: failure.cause }, "model call retrying");
        if (pieces?.streamedAny) onDelta?.({ kind: "restart", cause: failure.cause });
        request.onRetry?.({ retry, of: options.maxRetries, cause: failure.cause, waitMs });
        await sleep(waitMs, undefined, { signal });
        retry += 1;
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
        const reply = await tryUntilDone(request, signal, thisCall);
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

/** A stream that sent nothing for the idle time: worth another try, like a timeout. */
function stalled(server: string, idleMs: number): ModelFailure {
  return {
    cause: `the answer from ${server} stalled: nothing came for ${idleMs} ms`,
    fix: "check the model server, or raise MODEL_STREAM_IDLE_MS",
    retryable: true,
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
