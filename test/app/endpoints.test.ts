// The endpoints a process has: OPENAI_MODEL at OPENAI_BASE_URL first, then MODEL_FALLBACKS, each
// with OPENAI_API_KEY unless the settings file names its own key variable, with its own window.
import { describe, expect, it } from "vitest";
import { fallbackEndpoints, primaryEndpoint, unusedEntries } from "../../src/app-endpoints.js";
import { loadConfig } from "../../src/config.js";

const config = loadConfig({
  OPENAI_API_KEY: "sk-main",
  OPENAI_BASE_URL: "https://user:pass@api.example/v1/",
  MODEL_FALLBACKS: "gpt-4o-mini@https://eu.example/v1,llama3.1@http://127.0.0.1:11434/v1/,gpt-4o-mini@https://eu.example/v1/",
});

describe("the endpoints", () => {
  it("start with the run's model at OPENAI_BASE_URL, named without credentials or a trailing slash", () => {
    expect(primaryEndpoint(config, "gpt-4.1", 1_000_000)).toEqual({
      name: "gpt-4.1@https://api.example/v1",
      model: "gpt-4.1",
      baseUrl: "https://api.example/v1",
      apiKey: "sk-main",
      contextWindow: 1_000_000,
    });
    expect(primaryEndpoint(loadConfig({ OPENAI_API_KEY: "k" }), "gpt-4o", 1).name).toBe("gpt-4o@https://api.openai.com/v1");
  });

  it("go on with each fallback once, with OPENAI_API_KEY and the model table's window unless the settings say otherwise", () => {
    const list = fallbackEndpoints(
      config,
      { "llama3.1@http://127.0.0.1:11434/v1": { apiKeyVariable: "LOCAL_KEY", contextTokens: 8_192 } },
      { LOCAL_KEY: " local-key " },
    );
    expect(list).toEqual({
      kind: "ok",
      endpoints: [
        {
          name: "gpt-4o-mini@https://eu.example/v1",
          model: "gpt-4o-mini",
          baseUrl: "https://eu.example/v1",
          apiKey: "sk-main",
          contextWindow: 128_000,
        },
        {
          name: "llama3.1@http://127.0.0.1:11434/v1",
          model: "llama3.1",
          baseUrl: "http://127.0.0.1:11434/v1",
          apiKey: "local-key",
          contextWindow: 8_192,
        },
      ],
    });
  });

  it("fail with one line naming the entry when its key variable is not set", () => {
    expect(fallbackEndpoints(config, { "gpt-4o-mini@https://eu.example/v1/": { apiKeyVariable: "EU_KEY" } }, {})).toEqual({
      kind: "failed",
      problem: 'models."gpt-4o-mini@https://eu.example/v1/".apiKeyVariable: EU_KEY is not set in the environment',
    });
  });

  it("leave entries of the settings that name no endpoint in use, for a warning", () => {
    const list = fallbackEndpoints(config, {}, {});
    if (list.kind !== "ok") throw new Error(list.problem);
    const models = {
      "gpt-4o-mini@https://eu.example/v1": {},
      "gpt-4.1@https://api.example/v1": {},
      "gpt-4o@https://typo.example/v1": {},
    };
    expect(unusedEntries(models, list.endpoints, primaryEndpoint(config, "gpt-4o", 1))).toEqual(["gpt-4o@https://typo.example/v1"]);
  });
});
