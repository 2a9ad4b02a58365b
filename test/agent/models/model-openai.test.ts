import { createServer } from "node:net";
import { once } from "node:events";
import { pino } from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createOpenAIModel, type OpenAIModelOptions } from "../../../src/agent/models/model-openai.js";
import type { ModelRequest, ModelRetry } from "../../../src/contracts/types.js";
import { ModelUnavailableError } from "../../../src/errors.js";
import { silentLogger } from "../../../src/logger.js";
import { errorReply, startFakeOpenAI, textReply, toolCallReply, type FakeOpenAI } from "../../support/fake-openai-server.js";

const API_KEY = "sk-test-abcdefghijklmnop1234";

let server: FakeOpenAI;

beforeEach(async () => {
  server = await startFakeOpenAI();
});

afterEach(async () => {
  await server.close();
});

function model(overrides: Partial<OpenAIModelOptions> = {}) {
  return createOpenAIModel({
    apiKey: API_KEY,
    baseUrl: server.baseUrl,
    model: "gpt-4o-mini",
    timeoutMs: 5_000,
    maxRetries: 2,
    logger: silentLogger,
    ...overrides,
  });
}

const ask: ModelRequest = { messages: [{ role: "user", content: "hi" }], tools: [] };

function live(): AbortSignal {
  return new AbortController().signal;
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.fail("expected the call to reject"),
    (error: unknown) => error,
  );
}

describe("createOpenAIModel against a fake OpenAI-compatible server", () => {
  it("sends tool calls and tool results in OpenAI format and maps the reply back", async () => {
    server.enqueue(toolCallReply([{ id: "call_b", name: "current_time", args: { timezone: "UTC" } }]));
    const request: ModelRequest = {
      messages: [
        { role: "system", content: "be brief" },
        { role: "user", content: "what is (3+4)*5" },
        { role: "assistant", content: null, toolCalls: [{ id: "call_a", name: "calculator", arguments: '{"expression":"(3+4)*5"}' }] },
        { role: "tool", toolCallId: "call_a", content: "35" },
        { role: "assistant", content: "It is 35." },
      ],
      tools: [{ name: "calculator", description: "math", parameters: { type: "object", properties: { expression: { type: "string" } } } }],
    };

    const reply = await model().complete(request, live());

    expect(reply).toEqual({ content: null, toolCalls: [{ id: "call_b", name: "current_time", arguments: '{"timezone":"UTC"}' }] });
    const sent = server.requests[0]!;
    expect(sent.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(sent.body.model).toBe("gpt-4o-mini");
    expect(sent.body.messages).toEqual([
      { role: "system", content: "be brief" },
      { role: "user", content: "what is (3+4)*5" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "call_a", type: "function", function: { name: "calculator", arguments: '{"expression":"(3+4)*5"}' } }],
      },
      { role: "tool", tool_call_id: "call_a", content: "35" },
      { role: "assistant", content: "It is 35." },
    ]);
    expect(sent.body.tools).toEqual([
      {
        type: "function",
        function: {
          name: "calculator",
          description: "math",
          parameters: { type: "object", properties: { expression: { type: "string" } } },
        },
      },
    ]);
    expect(sent.body.response_format).toBeUndefined();
  });

  it("offers no tools when the request has none, and asks for JSON when told", async () => {
    server.enqueue(textReply('{"facts":[]}'));
    const reply = await model().complete({ ...ask, responseFormat: "json_object" }, live());
    expect(reply.content).toBe('{"facts":[]}');
    expect(server.requests[0]!.body).not.toHaveProperty("tools");
    expect(server.requests[0]!.body.response_format).toEqual({ type: "json_object" });
  });

  it("records token usage when the server reports it, and leaves it out otherwise", async () => {
    server.enqueue(textReply("hello", { prompt: 12, completion: 3 }), textReply("again"));
    const m = model();
    expect(await m.complete(ask, live())).toEqual({ content: "hello", toolCalls: [], usage: { promptTokens: 12, completionTokens: 3 } });
    expect(await m.complete(ask, live())).not.toHaveProperty("usage");
  });

  it("reports the prompt tokens the server read from its cache, and ignores a malformed detail", async () => {
    server.enqueue(textReply("cached", { prompt: 1_000, completion: 5, cached: 768 }), {
      body: {
        choices: [{ index: 0, message: { role: "assistant", content: "odd" }, finish_reason: "stop" }],
        usage: { prompt_tokens: 10, completion_tokens: 2, prompt_tokens_details: { cached_tokens: "many" } },
      },
    });
    const m = model();
    expect((await m.complete(ask, live())).usage).toEqual({ promptTokens: 1_000, completionTokens: 5, cachedTokens: 768 });
    expect(await m.complete(ask, live())).toEqual({ content: "odd", toolCalls: [], usage: { promptTokens: 10, completionTokens: 2 } });
  });

  it("retries a 429 that carries Retry-After, then returns the reply", async () => {
    server.enqueue(errorReply(429, "slow down", { "retry-after": "0" }), textReply("done"));
    const reply = await model().complete(ask, live());
    expect(reply.content).toBe("done");
    expect(server.requests).toHaveLength(2);
  });

  it("gives up on a persistent 500 with ModelUnavailableError after maxRetries", async () => {
    const failing = errorReply(500, "boom", { "retry-after-ms": "0" });
    server.enqueue(failing, failing, failing);
    const error = await failure(model({ maxRetries: 1 }).complete(ask, live()));
    expect(error).toBeInstanceOf(ModelUnavailableError);
    expect((error as ModelUnavailableError).status).toBe(500);
    expect((error as ModelUnavailableError).failure).toEqual({
      cause: 'the model server is failing (500: "boom"), after 2 tries',
      fix: "check the model server",
      retryable: true,
      status: 500,
    });
    expect(server.requests).toHaveLength(2);
  });

  it("announces each retry with its number, the most there will be, and what failed", async () => {
    const failing = errorReply(503, "overloaded", { "retry-after-ms": "0" });
    server.enqueue(failing, failing, textReply("there"));
    const retries: ModelRetry[] = [];
    const reply = await model({ maxRetries: 3 }).complete({ ...ask, onRetry: (retry) => retries.push(retry) }, live());
    expect(reply.content).toBe("there");
    expect(retries).toEqual([
      { retry: 1, of: 3, cause: 'the model server is failing (503: "overloaded")', waitMs: 0 },
      { retry: 2, of: 3, cause: 'the model server is failing (503: "overloaded")', waitMs: 0 },
    ]);
  });

  it("does not retry what the server says not to retry (x-should-retry: false)", async () => {
    server.enqueue(errorReply(500, "broken for good", { "x-should-retry": "false" }), textReply("never"));
    const retries: ModelRetry[] = [];
    const error = await failure(model().complete({ ...ask, onRetry: (retry) => retries.push(retry) }, live()));
    expect((error as ModelUnavailableError).failure.retryable).toBe(false);
    expect(retries).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });

  it("does not retry a 401 and says which variable to check, without the key", async () => {
    server.enqueue(errorReply(401, `Incorrect API key provided: ${API_KEY}`));
    const error = await failure(model().complete(ask, live()));
    expect(error).toBeInstanceOf(ModelUnavailableError);
    expect((error as ModelUnavailableError).failure).toMatchObject({ fix: "check OPENAI_API_KEY", retryable: false, status: 401 });
    expect((error as ModelUnavailableError).failure.cause).toMatch(
      /^the model server refused the key \(401: "Incorrect API key provided: \[secret\]"\)$/,
    );
    expect((error as Error).message).not.toContain(API_KEY);
    expect(server.requests).toHaveLength(1);
  });

  it("logs one debug line per call with status and tokens, and never the key", async () => {
    const lines: string[] = [];
    const logger = pino({ level: "debug" }, { write: (line: string) => void lines.push(line) });
    server.enqueue(textReply("hi", { prompt: 7, completion: 2 }), errorReply(401, `Incorrect API key provided: ${API_KEY}`));
    const m = model({ logger });
    await m.complete(ask, live());
    await failure(m.complete(ask, live()));
    const calls = lines.map((line) => JSON.parse(line)).filter((entry) => entry.msg === "model call");
    expect(calls.map((entry) => [entry.status, entry.promptTokens, entry.completionTokens])).toEqual([
      ["ok", 7, 2],
      ["unavailable", undefined, undefined],
    ]);
    expect(lines.join("\n")).not.toContain(API_KEY);
  });

  it("names the model and base URL on a 404", async () => {
    server.enqueue(errorReply(404, "model not found"));
    const error = await failure(model({ model: "no-such-model" }).complete(ask, live()));
    expect((error as Error).message).toContain('OPENAI_MODEL ("no-such-model")');
    expect((error as ModelUnavailableError).status).toBe(404);
    expect((error as ModelUnavailableError).failure.retryable).toBe(false);
    expect(server.requests).toHaveLength(1);
  });

  it("says it could not connect when nothing listens at the base URL", async () => {
    const closed = createServer();
    closed.listen(0, "127.0.0.1");
    await once(closed, "listening");
    const port = (closed.address() as { port: number }).port;
    closed.close();
    await once(closed, "close");

    const retries: ModelRetry[] = [];
    const refused = model({ baseUrl: `http://127.0.0.1:${port}/v1`, maxRetries: 1 });
    const error = await failure(refused.complete({ ...ask, onRetry: (retry) => retries.push(retry) }, live()));
    expect(error).toBeInstanceOf(ModelUnavailableError);
    const cause = `could not connect to http://127.0.0.1:${port}/v1 (connection refused: ECONNREFUSED)`;
    expect((error as ModelUnavailableError).failure).toEqual({
      cause: `${cause}, after 2 tries`,
      fix: "check OPENAI_BASE_URL and that the model server is running",
      retryable: true,
    });
    expect(retries).toEqual([{ retry: 1, of: 1, cause, waitMs: expect.any(Number) }]);
  });

  it("says what fetch refused when it is no network failure (a port fetch never uses)", async () => {
    const error = await failure(model({ baseUrl: "http://127.0.0.1:9/v1", maxRetries: 0 }).complete(ask, live()));
    expect((error as ModelUnavailableError).failure.cause).toBe("could not connect to http://127.0.0.1:9/v1 (bad port)");
  });

  it("says the DNS lookup failed for a host name that does not resolve", async () => {
    const error = await failure(model({ baseUrl: "http://model.invalid/v1", maxRetries: 0 }).complete(ask, live()));
    expect((error as ModelUnavailableError).failure).toEqual({
      cause: "could not connect to http://model.invalid/v1 (DNS lookup failed: ENOTFOUND)",
      fix: "check OPENAI_BASE_URL and the network",
      retryable: true,
    });
  });

  it("reports a timeout when the server never answers", async () => {
    server.enqueue({ hang: true });
    const error = await failure(model({ timeoutMs: 200, maxRetries: 0 }).complete(ask, live()));
    expect(error).toBeInstanceOf(ModelUnavailableError);
    expect((error as ModelUnavailableError).failure).toEqual({
      cause: `no reply from ${server.baseUrl} within 200 ms`,
      fix: "check that the model server is running, or raise OPENAI_TIMEOUT_MS",
      retryable: true,
    });
  });

  it("passes tool-call arguments through raw when they are not JSON", async () => {
    server.enqueue(toolCallReply([{ id: "c1", name: "calculator", args: "{expression: 2+2" }]));
    const reply = await model().complete(ask, live());
    expect(reply.toolCalls).toEqual([{ id: "c1", name: "calculator", arguments: "{expression: 2+2" }]);
  });

  it("fills in a missing tool-call id and turns object arguments into JSON text", async () => {
    server.enqueue({
      body: {
        choices: [
          {
            message: {
              role: "assistant",
              content: null,
              tool_calls: [{ type: "function", function: { name: "calculator", arguments: { expression: "1+1" } } }],
            },
          },
        ],
      },
    });
    const reply = await model().complete(ask, live());
    expect(reply.toolCalls).toHaveLength(1);
    expect(reply.toolCalls[0]!.id).not.toBe("");
    expect(reply.toolCalls[0]!.arguments).toBe('{"expression":"1+1"}');
  });

  it("keeps a tool call without a name (as an empty name), so the loop can tell the model what was wrong", async () => {
    server.enqueue({
      body: {
        choices: [
          { message: { role: "assistant", content: null, tool_calls: [{ id: "c9", type: "function", function: { arguments: "{}" } }] } },
        ],
      },
    });
    const reply = await model().complete(ask, live());
    expect(reply.toolCalls).toEqual([{ id: "c9", name: "", arguments: "{}" }]);
  });

  it("returns an empty reply for empty choices", async () => {
    server.enqueue({ body: { id: "x", object: "chat.completion", choices: [] } });
    expect(await model().complete(ask, live())).toEqual({ content: null, toolCalls: [] });
  });

  it("treats a body that is not a chat completion as an unavailable model", async () => {
    server.enqueue({ body: "<html>proxy login</html>" });
    const error = await failure(model().complete(ask, live()));
    expect(error).toBeInstanceOf(ModelUnavailableError);
    expect((error as Error).message).toContain("OpenAI chat format");
    expect((error as ModelUnavailableError).failure.retryable).toBe(false);
  });

  it("rejects with the abort, not ModelUnavailableError, when the signal aborts mid-request", async () => {
    server.enqueue({ hang: true });
    const controller = new AbortController();
    const pending = failure(model().complete(ask, controller.signal));
    await server.waitForRequests(1);
    controller.abort();
    const error = await pending;
    expect(error).not.toBeInstanceOf(ModelUnavailableError);
    expect((error as Error).name).toBe("AbortError");
  });

  it("rejects with the signal's reason while it waits out a long Retry-After", async () => {
    server.enqueue(errorReply(429, "slow down", { "retry-after": "3600" }));
    const controller = new AbortController();
    let announced: (retry: ModelRetry) => void = () => {};
    const retrying = new Promise<ModelRetry>((resolve) => (announced = resolve));
    const pending = failure(model().complete({ ...ask, onRetry: (retry) => announced(retry) }, controller.signal));
    expect((await retrying).waitMs).toBeGreaterThan(3_599_000);
    const reason = new Error("run deadline passed");
    controller.abort(reason);
    expect(await pending).toBe(reason);
    expect(server.requests).toHaveLength(1);
  });

  it("rejects at once without a request when the signal is already aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await failure(model().complete(ask, controller.signal));
    expect((error as Error).name).toBe("AbortError");
    expect(server.requests).toHaveLength(0);
  });
});
