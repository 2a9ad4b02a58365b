// A failure keeps the wait the server asked for (retry-after-ms, retry-after in seconds or as a
// date), read from the real SDK's error, so a failover can honour it across endpoints and runs.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createOpenAIModel } from "../../../src/agent/models/model-openai.js";
import { ModelUnavailableError } from "../../../src/errors.js";
import { silentLogger } from "../../../src/logger.js";
import { errorReply, startFakeOpenAI, type FakeOpenAI } from "../../support/fake-openai-server.js";

let server: FakeOpenAI;
beforeEach(async () => {
  server = await startFakeOpenAI();
});
afterEach(async () => {
  await server.close();
});

async function failureAfter(headers: Record<string, string>) {
  server.enqueue(errorReply(429, "Rate limit reached", headers));
  const model = createOpenAIModel({
    apiKey: "sk-test",
    baseUrl: server.baseUrl,
    model: "gpt-4o-mini",
    timeoutMs: 5_000,
    streamIdleMs: 5_000,
    maxRetries: 0,
    logger: silentLogger,
  });
  const error = await model
    .complete({ messages: [{ role: "user", content: "hi" }], tools: [] }, new AbortController().signal)
    .catch((caught: unknown) => caught);
  if (!(error instanceof ModelUnavailableError)) throw new Error(`expected the model to be unavailable, got ${String(error)}`);
  return error.failure;
}

describe("the server's own wait", () => {
  it("is kept from retry-after-ms, else retry-after in seconds", async () => {
    expect(await failureAfter({ "retry-after-ms": "1500" })).toMatchObject({ status: 429, retryable: true, retryAfterMs: 1_500 });
    expect((await failureAfter({ "retry-after": "20" })).retryAfterMs).toBe(20_000);
  });

  it("is read from a date, as what is left until it", async () => {
    const wait = (await failureAfter({ "retry-after": new Date(Date.now() + 60_000).toUTCString() })).retryAfterMs;
    expect(wait).toBeGreaterThan(55_000);
    expect(wait).toBeLessThanOrEqual(60_000);
  });

  it("is absent when the server named none", async () => {
    expect(await failureAfter({})).not.toHaveProperty("retryAfterMs");
  });
});
