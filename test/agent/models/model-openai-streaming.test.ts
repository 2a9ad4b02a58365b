// The OpenAI client streaming (a request with onDelta): the real `openai` SDK against the fake
// server's server-sent chunks. Pieces arrive before the reply, add up to the reply a whole answer
// makes, and every failure mid-stream is a try like any other (retried after a restart).
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { OpenAIModelOptions } from "../../../src/agent/models/model-openai.js";
import type { ModelDelta, ModelRequest, ModelRetry } from "../../../src/contracts/types.js";
import type { ModelUnavailableError } from "../../../src/errors.js";
import { startFakeOpenAI, textReply, toolCallReply, type FakeOpenAI } from "../../support/fake-openai-server.js";
import { openAIClient } from "../../support/openai-client.js";

let server: FakeOpenAI;

beforeEach(async () => {
  server = await startFakeOpenAI();
});

afterEach(async () => {
  await server.close();
});

const model = (overrides: Partial<OpenAIModelOptions> = {}) => openAIClient(server.baseUrl, overrides);

/** A request that asks for the pieces, and what came of it: every piece, and the first text piece as it arrived. */
function streamed(retries: ModelRetry[] = []) {
  const deltas: ModelDelta[] = [];
  let firstText: (text: string) => void = () => {};
  const first = new Promise<string>((resolve) => (firstText = resolve));
  const request: ModelRequest = {
    messages: [{ role: "user", content: "hi" }],
    tools: [],
    onDelta: (delta) => {
      deltas.push(delta);
      if (delta.kind === "text") firstText(delta.text);
    },
    onRetry: (retry) => retries.push(retry),
  };
  /** The text streamed since the last restart. */
  const text = () =>
    deltas.reduce((sofar, delta) => (delta.kind === "restart" ? "" : delta.kind === "text" ? sofar + delta.text : sofar), "");
  return { request, deltas, first, text };
}

function released(): { until: Promise<void>; release: () => void } {
  let release: () => void = () => {};
  return { until: new Promise<void>((resolve) => (release = resolve)), release };
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.fail("expected the call to reject"),
    (error: unknown) => error,
  );
}

const ANSWER = "The answer is forty-two, as it always was.";

describe("a streamed model call", () => {
  it("asks for a stream with usage, and tells the first text piece while the server still holds the rest", async () => {
    const gate = released();
    server.enqueue({ ...textReply(ANSWER, { prompt: 40, completion: 12 }), pace: { afterChunks: 2, until: gate.until } });
    const { request, first, text } = streamed();
    let settled = false;
    const pending = model()
      .complete(request, new AbortController().signal)
      .finally(() => (settled = true));

    expect(ANSWER.startsWith(await first)).toBe(true);
    expect(settled).toBe(false);
    gate.release();
    const reply = await pending;

    expect(reply).toEqual({ content: ANSWER, toolCalls: [], usage: { promptTokens: 40, completionTokens: 12 } });
    expect(text()).toBe(ANSWER);
    expect(server.requests[0]!.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it("assembles tool-call arguments cut mid-JSON, with the text before them and usage from the last chunk, into the reply a whole answer makes", async () => {
    const answer = () =>
      toolCallReply(
        [
          { id: "call_a", name: "calculator", args: { expression: "(3+4)*5" } },
          { id: "call_b", name: "current_time", args: { timezone: "Europe/Paris" } },
        ],
        { prompt: 1_000, completion: 30, cached: 768 },
        "Let me work that out.",
      );
    server.enqueue(answer(), answer());
    const m = model();
    const { request, deltas, text } = streamed();

    const streamedReply = await m.complete(request, new AbortController().signal);
    const wholeReply = await m.complete({ ...request, onDelta: undefined }, new AbortController().signal);

    expect(streamedReply).toEqual(wholeReply);
    expect(streamedReply).toEqual({
      content: "Let me work that out.",
      toolCalls: [
        { id: "call_a", name: "calculator", arguments: '{"expression":"(3+4)*5"}' },
        { id: "call_b", name: "current_time", arguments: '{"timezone":"Europe/Paris"}' },
      ],
      usage: { promptTokens: 1_000, completionTokens: 30, cachedTokens: 768 },
    });
    expect(text()).toBe("Let me work that out.");
    const pieces = deltas.filter((delta) => delta.kind === "tool_call");
    expect(pieces.filter((piece) => piece.id !== undefined).map((piece) => [piece.index, piece.id, piece.name])).toEqual([
      [0, "call_a", "calculator"],
      [1, "call_b", "current_time"],
    ]);
    const fragments = pieces.filter((piece) => piece.index === 0).map((piece) => piece.arguments);
    expect(fragments.join("")).toBe('{"expression":"(3+4)*5"}');
    expect(fragments.filter((fragment) => fragment !== "").length).toBeGreaterThan(2);
    expect(server.requests[1]!.body).not.toHaveProperty("stream");
  });

  it("counts a stream that stalls past the idle time as a failed try: the connection is closed, a restart, then the retry's pieces", async () => {
    server.enqueue({ ...textReply("This try will stall half way."), pace: { afterChunks: 3 } }, textReply("The retry answers."));
    const retries: ModelRetry[] = [];
    const { request, deltas, text } = streamed(retries);

    const reply = await model({ streamIdleMs: 200 }).complete(request, new AbortController().signal);

    expect(reply.content).toBe("The retry answers.");
    expect(text()).toBe("The retry answers.");
    const cause = `the answer from ${server.baseUrl} stalled: nothing came for 200 ms`;
    expect(deltas.filter((delta) => delta.kind === "restart")).toEqual([{ kind: "restart", cause }]);
    expect(deltas.findIndex((delta) => delta.kind === "restart")).toBeGreaterThan(0);
    expect(retries).toEqual([{ retry: 1, of: 2, cause, waitMs: expect.any(Number) }]);
    await server.waitForCancelled(1);
  });

  it("gives up on a stream that stalls on every try, naming the idle time to raise, with no restart after the last", async () => {
    server.enqueue({ ...textReply("Stalls."), pace: { afterChunks: 1 } });
    const { request, deltas } = streamed();
    const error = await failure(model({ streamIdleMs: 100, maxRetries: 0 }).complete(request, new AbortController().signal));
    expect((error as ModelUnavailableError).failure).toEqual({
      cause: `the answer from ${server.baseUrl} stalled: nothing came for 100 ms`,
      fix: "check the model server, or raise MODEL_STREAM_IDLE_MS",
      retryable: true,
    });
    expect(deltas.some((delta) => delta.kind === "restart")).toBe(false);
  });

  it("retries a stream that breaks off mid-answer, after a restart", async () => {
    server.enqueue(
      { ...textReply("This answer is cut off by the network."), pace: { afterChunks: 3, cut: true } },
      textReply("Whole now."),
    );
    const retries: ModelRetry[] = [];
    const { request, deltas, text } = streamed(retries);

    const reply = await model().complete(request, new AbortController().signal);

    expect(reply.content).toBe("Whole now.");
    expect(text()).toBe("Whole now.");
    expect(deltas.filter((delta) => delta.kind === "restart")).toHaveLength(1);
    expect(retries[0]!.cause).toBe(`the answer from ${server.baseUrl} broke off (connection reset: UND_ERR_SOCKET)`);
  });

  it("retries a stream that ends without a finish reason (half an answer is no answer)", async () => {
    const half = { choices: [{ index: 0, delta: { role: "assistant", content: "Half" }, finish_reason: null }] };
    server.enqueue({ body: `data: ${JSON.stringify(half)}\n\ndata: [DONE]\n\n` }, textReply("All of it."));
    const retries: ModelRetry[] = [];
    const { request, deltas, text } = streamed(retries);

    expect((await model().complete(request, new AbortController().signal)).content).toBe("All of it.");
    expect(deltas[0]).toEqual({ kind: "text", text: "Half" });
    expect(text()).toBe("All of it.");
    expect(retries.map((retry) => retry.cause)).toEqual([`the stream from ${server.baseUrl} ended before the reply was finished`]);
  });

  it("retries a stream the server ends with an error event, saying what the server said", async () => {
    const started = { choices: [{ index: 0, delta: { role: "assistant", content: "Start" }, finish_reason: null }] };
    const broken = `data: ${JSON.stringify(started)}\n\ndata: {"error":{"message":"overloaded mid-answer","type":"server_error"}}\n\n`;
    server.enqueue({ body: broken }, textReply("Recovered."));
    const retries: ModelRetry[] = [];
    const { request, text } = streamed(retries);

    expect((await model().complete(request, new AbortController().signal)).content).toBe("Recovered.");
    expect(text()).toBe("Recovered.");
    expect(retries.map((retry) => retry.cause)).toEqual(['the model server ended its answer with an error: "overloaded mid-answer"']);
  });

  it("fails at once on an event that is not JSON", async () => {
    server.enqueue({ body: "data: <html>proxy login</html>\n\n" }, textReply("never asked"));
    const error = await failure(model().complete(streamed().request, new AbortController().signal));
    expect((error as ModelUnavailableError).failure).toEqual({
      cause: `the server at ${server.baseUrl} streamed something that is not in the OpenAI chat format`,
      fix: "check OPENAI_BASE_URL",
      retryable: false,
    });
    expect(server.requests).toHaveLength(1);
  });

  it("takes a local server's calls that come whole without index or id, filling in ids as for a whole reply", async () => {
    const call = (name: string, args: unknown) => ({ type: "function", function: { name, arguments: args } });
    const chunks = [
      {
        choices: [
          {
            index: 0,
            delta: {
              role: "assistant",
              tool_calls: [call("calculator", '{"expression":"1+1"}'), call("current_time", { timezone: "UTC" })],
            },
          },
        ],
      },
      { choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] },
    ];
    server.enqueue({ body: chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join("") });
    const { request, deltas } = streamed();

    const reply = await model().complete(request, new AbortController().signal);

    expect(reply.toolCalls).toEqual([
      { id: "call_1_1", name: "calculator", arguments: '{"expression":"1+1"}' },
      { id: "call_1_2", name: "current_time", arguments: '{"timezone":"UTC"}' },
    ]);
    expect(deltas).toEqual([
      { kind: "tool_call", index: 0, name: "calculator", arguments: '{"expression":"1+1"}' },
      { kind: "tool_call", index: 1, name: "current_time", arguments: '{"timezone":"UTC"}' },
    ]);
  });

  it("fails at once on a chunk that is not in the chat format", async () => {
    server.enqueue({ body: 'data: {"choices":"none"}\n\ndata: [DONE]\n\n' }, textReply("never asked"));
    const error = await failure(model().complete(streamed().request, new AbortController().signal));
    expect((error as ModelUnavailableError).failure).toMatchObject({ fix: "check OPENAI_BASE_URL", retryable: false });
    expect(server.requests).toHaveLength(1);
  });

  it("cancels the request at once when the signal aborts mid-stream: the connection is closed, no restart, the abort's reason", async () => {
    server.enqueue({ ...textReply("Words that keep coming for a long time."), pace: { afterChunks: 2 } });
    const { request, deltas, first } = streamed();
    const controller = new AbortController();
    const pending = failure(model().complete(request, controller.signal));
    await first;
    const reason = new Error("stopped by a person");
    controller.abort(reason);

    expect(await pending).toBe(reason);
    await server.waitForCancelled(1);
    expect(deltas.some((delta) => delta.kind === "restart")).toBe(false);
    expect(server.requests).toHaveLength(1);
  });
});

describe("a server that can't stream", () => {
  it("is asked again without `stream` after it refuses it, and from then on; the answer still comes as one piece first", async () => {
    const refusing = await startFakeOpenAI({ refusesStream: true });
    try {
      refusing.enqueue(textReply(ANSWER), textReply("Again."));
      const m = model({ baseUrl: refusing.baseUrl });
      const retries: ModelRetry[] = [];
      const first = streamed(retries);
      const second = streamed(retries);

      expect((await m.complete(first.request, new AbortController().signal)).content).toBe(ANSWER);
      expect((await m.complete(second.request, new AbortController().signal)).content).toBe("Again.");

      expect(first.deltas).toEqual([{ kind: "text", text: ANSWER }]);
      expect(second.deltas).toEqual([{ kind: "text", text: "Again." }]);
      expect(refusing.requests.map((sent) => [sent.body.stream, sent.body.stream_options])).toEqual([
        [true, { include_usage: true }],
        [undefined, undefined],
        [undefined, undefined],
      ]);
      expect(retries).toEqual([]);
    } finally {
      await refusing.close();
    }
  });

  it("is asked again without `stream` when it answers a stream request with a whole reply (no events at all)", async () => {
    const whole = textReply("Whole.").body;
    server.enqueue(
      { body: JSON.stringify(whole), headers: { "content-type": "application/json" } },
      textReply("Whole."),
      textReply("Still whole."),
    );
    const m = model();
    const { request, deltas } = streamed();

    expect((await m.complete(request, new AbortController().signal)).content).toBe("Whole.");
    expect(deltas).toEqual([{ kind: "text", text: "Whole." }]);
    expect((await m.complete(request, new AbortController().signal)).content).toBe("Still whole.");
    expect(server.requests.map((sent) => sent.body.stream)).toEqual([true, undefined, undefined]);
  });
});
