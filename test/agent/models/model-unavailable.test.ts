// An unavailable model seen from the loop, with the real openai SDK against a fake server on
// 127.0.0.1: each retry is an event, the stop says the cause and the fix, "try again" only when
// trying again can help, and the log line carries no stack unless LOG_LEVEL=debug.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { retryDelayMs } from "../../../src/agent/models/model-failure.js";
import { createOpenAIModel } from "../../../src/agent/models/model-openai.js";
import { createLogger } from "../../../src/logger.js";
import { answered, runQuestion } from "../../support/loop-harness.js";
import { errorReply, startFakeOpenAI, textReply, type FakeOpenAI } from "../../support/fake-openai-server.js";
import { freePort } from "../../support/free-port.js";

let server: FakeOpenAI;

beforeEach(async () => {
  server = await startFakeOpenAI();
});

afterEach(async () => {
  await server.close();
});

function logged(level = "info") {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger(level, { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { lines, logger };
}

function openai(baseUrl: string, maxRetries: number, logger = logged().logger) {
  return createOpenAIModel({ apiKey: "sk-test-abcdefghijklmnop", baseUrl, model: "gpt-4o-mini", timeoutMs: 5_000, maxRetries, logger });
}

describe("a model that is not answering", () => {
  it("emits model_retrying for each retry of the step's call, then answers", async () => {
    const busy = errorReply(503, "overloaded", { "retry-after-ms": "0" });
    server.enqueue(busy, busy, textReply("here at last"));
    const { outcome, events } = await runQuestion(openai(server.baseUrl, 3), "hello");
    expect(answered(outcome).answer).toBe("here at last");
    expect(events.filter((event) => event.type === "model_retrying")).toEqual([
      {
        type: "model_retrying",
        runId: "run-1",
        step: 1,
        retry: 1,
        of: 3,
        cause: 'the model server is failing (503: "overloaded")',
        waitMs: 0,
      },
      {
        type: "model_retrying",
        runId: "run-1",
        step: 1,
        retry: 2,
        of: 3,
        cause: 'the model server is failing (503: "overloaded")',
        waitMs: 0,
      },
    ]);
  });

  it("stops with the cause and the fix when nothing listens, and logs one warning without a stack", async () => {
    const port = await freePort();
    const { lines, logger } = logged();
    const { outcome, events } = await runQuestion(openai(`http://127.0.0.1:${port}/v1`, 1), "hello", { logger });
    const result = answered(outcome);
    expect(result.answer).toBe('I could not get an answer to "hello" from the model.');
    expect(result.stop?.sentence).toBe(
      `Stopped: could not connect to http://127.0.0.1:${port}/v1 (connection refused: ECONNREFUSED), after 2 tries. ` +
        "Check OPENAI_BASE_URL and that the model server is running, then try again.",
    );
    expect(events.filter((event) => event.type === "model_retrying")).toHaveLength(1);
    const failures = lines.filter((line) => line.msg === "the model is unavailable");
    expect(failures).toEqual([expect.objectContaining({ level: 40, retryable: true, step: 1 })]);
    expect(JSON.stringify(lines)).not.toContain("stack");
  });

  it("keeps the stack of the failure for LOG_LEVEL=debug", async () => {
    const port = await freePort();
    const { lines, logger } = logged("debug");
    await runQuestion(openai(`http://127.0.0.1:${port}/v1`, 0, logger), "hello", { logger });
    const failure = lines.find((line) => line.msg === "the model is unavailable");
    expect((failure?.err as { stack?: string } | undefined)?.stack).toContain("ModelUnavailableError");
  });

  it("says to check the key on a 401, without a retry and without 'try again'", async () => {
    server.enqueue(errorReply(401, "Incorrect API key provided"), textReply("never sent"));
    const { outcome, events } = await runQuestion(openai(server.baseUrl, 3), "hello");
    const sentence = answered(outcome).stop?.sentence ?? "";
    expect(sentence).toBe(
      'Stopped: the model server refused the key (401: "Incorrect API key provided"). Check OPENAI_API_KEY; trying again will not help until then.',
    );
    expect(`${answered(outcome).answer} ${sentence}`).not.toMatch(/try again in a moment|then try again/i);
    expect(events.some((event) => event.type === "model_retrying")).toBe(false);
    expect(server.requests).toHaveLength(1);
  });

  it("names the model and the base URL on a 404, and does not offer another try", async () => {
    server.enqueue(errorReply(404, "The model `nope` does not exist"));
    const { outcome } = await runQuestion(openai(server.baseUrl, 3), "hello");
    expect(answered(outcome).stop?.sentence).toBe(
      `Stopped: the model server found no such model or path (404: "The model \`nope\` does not exist"). Check OPENAI_MODEL ("gpt-4o-mini") and OPENAI_BASE_URL (${server.baseUrl}; it usually ends in /v1); trying again will not help until then.`,
    );
  });
});

describe("the wait before a retry, as the openai SDK waits", () => {
  const noJitter = () => 0;

  it("doubles from half a second up to 8 s, less up to a quarter at random", () => {
    expect([1, 2, 3, 4, 5, 6].map((retry) => retryDelayMs(new Error("x"), retry, noJitter))).toEqual([
      500, 1_000, 2_000, 4_000, 8_000, 8_000,
    ]);
    expect(retryDelayMs(new Error("x"), 1, () => 0.999)).toBeCloseTo(375, 0);
  });
});
