// A scriptable OpenAI-compatible server on 127.0.0.1 for driving the real `openai` SDK.
// Each POST /v1/chat/completions takes the next queued response; every request is recorded.
// A request with `stream: true` gets the same scripted completion as server-sent chunks
// (fake-openai-stream.ts), paced as the response says; the server refuses what the real API
// refuses (`stream_options` without `stream`), and can be one that refuses `stream` itself.
import { once } from "node:events";
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import { completionChunks, sseEvent, streamableCompletion } from "./fake-openai-stream.js";

export interface FakeResponse {
  /** Default 200. */
  readonly status?: number;
  readonly headers?: Readonly<Record<string, string>>;
  /** An object is sent as JSON; a string is sent as is. */
  readonly body?: unknown;
  /** Never answer (until the client gives up or the server closes). */
  readonly hang?: true;
  /** Answer after this long (a model that takes its time). */
  readonly delayMs?: number;
  /** How a `stream: true` request gets its chunks; without it, all of them at once. */
  readonly pace?: StreamPace;
}

/** A stream that sends `afterChunks` chunks, then waits (the connection open) for `until`, or for ever without it; or breaks off there. */
export interface StreamPace {
  readonly afterChunks: number;
  readonly until?: Promise<void>;
  /** The connection is cut (the socket destroyed) after those chunks instead. */
  readonly cut?: true;
}

export interface FakeOpenAIOptions {
  /** A server that can't stream: a request with `stream: true` is refused with a 400 naming it, the queue untouched. */
  readonly refusesStream?: true;
}

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  /** Parsed JSON, or the raw text when it was not JSON. */
  readonly body: any;
}

/** A response, or a function that builds one from the request it answers. */
export type ScriptedResponse = FakeResponse | ((request: RecordedRequest) => FakeResponse);

export interface FakeOpenAI {
  /** e.g. http://127.0.0.1:PORT */
  readonly url: string;
  /** `${url}/v1`, what the SDK takes as baseURL. */
  readonly baseUrl: string;
  /** Every chat-completions request, in arrival order. */
  readonly requests: RecordedRequest[];
  enqueue(...responses: ScriptedResponse[]): void;
  /** How many answers (a hanging one, a stream still going) the client gave up on: it closed the connection, a cancelled call. */
  cancelled(): number;
  /** Resolves once at least `count` answers were cancelled; rejects after `timeoutMs`. */
  waitForCancelled(count: number, timeoutMs?: number): Promise<void>;
  /** Resolves once at least `count` requests arrived; rejects after `timeoutMs`. */
  waitForRequests(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export interface ToolCallSpec {
  readonly name: string;
  /** An object is sent as JSON text; a string as is. */
  readonly args: string | object;
  readonly id?: string;
}

export interface UsageSpec {
  readonly prompt: number;
  readonly completion: number;
  /** Sent as usage.prompt_tokens_details.cached_tokens, as OpenAI reports prompt-cache hits. */
  readonly cached?: number;
}

export function textReply(text: string, usage?: UsageSpec): FakeResponse {
  return completion({ role: "assistant", content: text }, "stop", usage);
}

/** `text`: what the model writes before its calls (what it is about to do). */
export function toolCallReply(calls: readonly ToolCallSpec[], usage?: UsageSpec, text?: string): FakeResponse {
  const toolCalls = calls.map((call, index) => ({
    id: call.id ?? `call_fake_${index + 1}`,
    type: "function",
    function: { name: call.name, arguments: typeof call.args === "string" ? call.args : JSON.stringify(call.args) },
  }));
  return completion({ role: "assistant", content: text ?? null, tool_calls: toolCalls }, "tool_calls", usage);
}

export function errorReply(status: number, message: string, headers?: Record<string, string>): FakeResponse {
  return { status, ...(headers ? { headers } : {}), body: { error: { message, type: "fake_error", code: null } } };
}

function completion(message: object, finishReason: string, usage?: UsageSpec): FakeResponse {
  return {
    body: {
      id: "chatcmpl-fake",
      object: "chat.completion",
      created: 1_700_000_000,
      model: "fake-model",
      choices: [{ index: 0, message, finish_reason: finishReason }],
      ...(usage
        ? {
            usage: {
              prompt_tokens: usage.prompt,
              completion_tokens: usage.completion,
              total_tokens: usage.prompt + usage.completion,
              ...(usage.cached === undefined ? {} : { prompt_tokens_details: { cached_tokens: usage.cached } }),
            },
          }
        : {}),
    },
  };
}

const EXHAUSTED: FakeResponse = errorReply(500, "fake server: no scripted response left for this request");

/** As the real API words it (a 400 invalid_request_error naming the parameter). */
const STREAM_OPTIONS_WITHOUT_STREAM = errorReply(400, "The 'stream_options' parameter is only allowed when 'stream' is enabled.");
const STREAM_REFUSED = errorReply(400, "stream is not supported by this server");

export async function startFakeOpenAI(options: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
  const queue: ScriptedResponse[] = [];
  const requests: RecordedRequest[] = [];
  const waiters = new Set<() => void>();
  let cancelled = 0;
  let closing = false;
  const wake = () => {
    for (const waiter of waiters) waiter();
  };

  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    const path = req.url ?? "/";
    if (req.method !== "POST" || path !== "/v1/chat/completions") {
      send(res, errorReply(404, `fake server: no route for ${req.method} ${path}`));
      return;
    }
    const recorded: RecordedRequest = { method: req.method, path, headers: req.headers, body: parseJson(text) };
    requests.push(recorded);
    wake();
    const streaming = recorded.body?.stream === true;
    if (recorded.body?.stream_options !== undefined && !streaming) return send(res, STREAM_OPTIONS_WITHOUT_STREAM);
    if (streaming && options.refusesStream) return send(res, STREAM_REFUSED);
    // An answer the client closes before it ended is a cancelled call.
    res.once("close", () => {
      if (!res.writableEnded && !closing) {
        cancelled += 1;
        wake();
      }
    });
    const next = queue.shift() ?? EXHAUSTED;
    const response = typeof next === "function" ? next(recorded) : next;
    if (response.hang) return;
    if (response.delayMs) await new Promise((resolve) => setTimeout(resolve, response.delayMs));
    const completion = streaming && (response.status ?? 200) === 200 ? streamableCompletion(response.body) : undefined;
    if (!completion) return send(res, response);
    await sendStream(res, completionChunks(completion, recorded.body.stream_options?.include_usage === true), response);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  /** Resolves once `reached()`; rejects after `timeoutMs` with `what`. */
  const until = (reached: () => boolean, what: () => string, timeoutMs: number) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!reached()) return;
        waiters.delete(check);
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`fake OpenAI server: ${what()} after ${timeoutMs} ms`));
      }, timeoutMs);
      waiters.add(check);
      check();
    });

  return {
    url,
    baseUrl: `${url}/v1`,
    requests,
    enqueue: (...responses) => void queue.push(...responses),
    cancelled: () => cancelled,
    waitForRequests: (count, timeoutMs = 5_000) =>
      until(
        () => requests.length >= count,
        () => `${requests.length} of ${count} requests`,
        timeoutMs,
      ),
    waitForCancelled: (count, timeoutMs = 5_000) =>
      until(
        () => cancelled >= count,
        () => `${cancelled} of ${count} cancelled answers`,
        timeoutMs,
      ),
    async close() {
      closing = true;
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };
}

/** The chunks as server-sent events, paced as the response says; stops writing once the client is gone. */
async function sendStream(res: ServerResponse, chunks: readonly ChatCompletionChunk[], response: FakeResponse): Promise<void> {
  res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", ...response.headers });
  const pace = response.pace;
  for (const [index, chunk] of chunks.entries()) {
    if (pace && index === pace.afterChunks) {
      // What was written goes out before the pause or the cut.
      await new Promise((resolve) => res.write("", resolve));
      if (pace.cut) return void res.socket?.destroy();
      await (pace.until ?? new Promise<never>(() => {}));
      if (res.destroyed) return;
    }
    res.write(sseEvent(chunk));
  }
  res.end(sseEvent("[DONE]"));
}

function send(res: ServerResponse, response: FakeResponse): void {
  const body = typeof response.body === "string" ? response.body : JSON.stringify(response.body ?? {});
  const contentType = typeof response.body === "string" ? "text/plain" : "application/json";
  res.writeHead(response.status ?? 200, { "content-type": contentType, ...response.headers });
  res.end(body);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
