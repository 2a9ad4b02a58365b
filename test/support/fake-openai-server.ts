// A scriptable OpenAI-compatible server on 127.0.0.1 for driving the real `openai` SDK.
// Each POST /v1/chat/completions takes the next queued response; every request is recorded.
import { once } from "node:events";
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

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
  /** How many requests left hanging the client gave up on (it closed the connection: a cancelled call). */
  cancelled(): number;
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

export function toolCallReply(calls: readonly ToolCallSpec[], usage?: UsageSpec): FakeResponse {
  const toolCalls = calls.map((call, index) => ({
    id: call.id ?? `call_fake_${index + 1}`,
    type: "function",
    function: { name: call.name, arguments: typeof call.args === "string" ? call.args : JSON.stringify(call.args) },
  }));
  return completion({ role: "assistant", content: null, tool_calls: toolCalls }, "tool_calls", usage);
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

export async function startFakeOpenAI(): Promise<FakeOpenAI> {
  const queue: ScriptedResponse[] = [];
  const requests: RecordedRequest[] = [];
  const waiters = new Set<() => void>();
  let cancelled = 0;
  let closing = false;

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
    for (const wake of waiters) wake();
    const next = queue.shift() ?? EXHAUSTED;
    const response = typeof next === "function" ? next(recorded) : next;
    if (response.hang) {
      res.once("close", () => {
        if (!closing) cancelled += 1;
      });
      return;
    }
    if (response.delayMs) setTimeout(() => send(res, response), response.delayMs);
    else send(res, response);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    baseUrl: `${url}/v1`,
    requests,
    enqueue: (...responses) => void queue.push(...responses),
    cancelled: () => cancelled,
    waitForRequests(count, timeoutMs = 5_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (requests.length < count) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`fake OpenAI server: ${requests.length} of ${count} requests after ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    async close() {
      closing = true;
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };
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
