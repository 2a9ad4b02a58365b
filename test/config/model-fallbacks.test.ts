// MODEL_FALLBACKS and the breaker's figures: a list of <model>@<base URL> endpoints, each entry
// checked, a bad one named on one line.
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { ConfigError } from "../../src/errors.js";

describe("MODEL_FALLBACKS", () => {
  it("is empty by default, and the breaker opens after 3 failures for 30 s", () => {
    expect(loadConfig({}).model).toMatchObject({ fallbacks: [], breakerFailures: 3, breakerCoolDownMs: 30_000 });
  });

  it("reads endpoints in order, blanks and spaces around commas dropped", () => {
    const config = loadConfig({ MODEL_FALLBACKS: " gpt-4o-mini@https://eu.example/v1 ,, llama3.1@http://127.0.0.1:11434/v1" });
    expect(config.model.fallbacks).toEqual([
      { model: "gpt-4o-mini", baseUrl: "https://eu.example/v1" },
      { model: "llama3.1", baseUrl: "http://127.0.0.1:11434/v1" },
    ]);
  });

  it("keeps a model name that holds an @ of its own", () => {
    expect(loadConfig({ MODEL_FALLBACKS: "team@org/model@https://x.example/v1" }).model.fallbacks).toEqual([
      { model: "team@org/model", baseUrl: "https://x.example/v1" },
    ]);
  });

  it.each(["gpt-4o", "@https://x.example/v1", "gpt-4o@ftp://x.example", "gpt-4o@https://"])("refuses %j on one line naming it", (entry) => {
    expect(() => loadConfig({ MODEL_FALLBACKS: `gpt-4o@https://ok.example/v1,${entry}` })).toThrow(ConfigError);
    try {
      loadConfig({ MODEL_FALLBACKS: `gpt-4o@https://ok.example/v1,${entry}` });
    } catch (error) {
      expect((error as Error).message).toContain(`MODEL_FALLBACKS: expects <model>@<base URL>, comma-separated`);
      expect((error as Error).message).toContain(`"${entry}" is not`);
      expect((error as Error).message.split("\n")).toHaveLength(1);
    }
  });

  it("takes breaker figures within their ranges", () => {
    expect(loadConfig({ MODEL_BREAKER_FAILURES: "1", MODEL_BREAKER_COOLDOWN_MS: "5000" }).model).toMatchObject({
      breakerFailures: 1,
      breakerCoolDownMs: 5_000,
    });
    expect(() => loadConfig({ MODEL_BREAKER_FAILURES: "0" })).toThrow(/MODEL_BREAKER_FAILURES: expects a whole number from 1 to 100/);
    expect(() => loadConfig({ MODEL_BREAKER_COOLDOWN_MS: "10" })).toThrow(/MODEL_BREAKER_COOLDOWN_MS: expects a whole number from 1000/);
  });
});
