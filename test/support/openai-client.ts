// The real OpenAI client as tests make it against the fake server (fake-openai-server.ts): a
// test key, short timeouts, two retries, no logs; a test overrides what it is about.
import { createOpenAIModel, type OpenAIModelOptions } from "../../src/agent/models/model-openai.js";
import type { Model } from "../../src/contracts/types.js";
import { silentLogger } from "../../src/logger.js";

export function openAIClient(baseUrl: string, overrides: Partial<OpenAIModelOptions> = {}): Model {
  return createOpenAIModel({
    apiKey: "sk-test",
    baseUrl,
    model: "gpt-4o-mini",
    timeoutMs: 5_000,
    streamIdleMs: 5_000,
    maxRetries: 2,
    logger: silentLogger,
    ...overrides,
  });
}
