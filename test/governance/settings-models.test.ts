// The settings file's `models` section: per endpoint (<model>@<base URL>), the variable holding
// its key, its context window and its prices. A file without the section loads as before.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkSettings } from "../../src/governance/settings-schema.js";
import { parseSettingsText } from "../../src/governance/settings-file.js";

describe("the models section", () => {
  it("is empty in a file written before it existed", async () => {
    const path = join(import.meta.dirname, "..", "fixtures", "main-2026-12", "bot.settings.json");
    const check = await parseSettingsText(await readFile(path, "utf8"), path);
    expect(check).toMatchObject({ kind: "ok", settings: { models: {} } });
  });

  it("gives an endpoint its key variable, context window and prices", () => {
    const check = checkSettings({
      models: {
        "llama3.1@http://127.0.0.1:11434/v1": { contextTokens: 8_192, prices: { input: 0, output: 0 } },
        "gpt-4o-mini@https://eu.example/v1": { apiKeyVariable: "EU_OPENAI_KEY", prices: { input: 0.2, cached: 0.1, output: 0.8 } },
      },
    });
    expect(check).toMatchObject({
      kind: "ok",
      settings: { models: { "gpt-4o-mini@https://eu.example/v1": { apiKeyVariable: "EU_OPENAI_KEY" } } },
    });
  });

  it("names each problem by its path", () => {
    const check = checkSettings({
      models: {
        "gpt-4o-mini@https://eu.example/v1": {
          apiKeyVariable: "sk-live-abc123",
          contextTokens: 10,
          prices: { input: -1, output: 1 },
          key: "x",
        },
        "just-a-model": {},
      },
    });
    expect(check.kind).toBe("invalid");
    const problems = check.kind === "invalid" ? check.problems : [];
    expect(problems).toEqual(
      expect.arrayContaining([
        'models.gpt-4o-mini@https://eu.example/v1: unknown field "key"',
        "models.gpt-4o-mini@https://eu.example/v1.apiKeyVariable: expects the name of an environment variable (e.g. EU_OPENAI_KEY), never the key itself",
        "models.gpt-4o-mini@https://eu.example/v1.contextTokens: expects at least 1024",
        "models.gpt-4o-mini@https://eu.example/v1.prices.input: expects dollars per million tokens",
        expect.stringMatching(/^models\.just-a-model: expects <model>@<base URL>/),
      ]),
    );
  });
});
