// The configuration as loadConfig reads it from the environment. Ranges and documented defaults
// are read from the declarations (src/config/), so this test can't restate one differently from
// the schema that enforces it or the page that shows it.
import { describe, expect, it } from "vitest";
import { join } from "node:path";
import { z } from "zod";
import { checkChatModel, loadConfig } from "../../src/config.js";
import { AREAS } from "../../src/config/areas.js";
import { ConfigError } from "../../src/errors.js";
import { configErrorFor } from "../support/config-error.js";

describe("configuration from the environment", () => {
  it("has working defaults with nothing set", () => {
    const config = loadConfig({});
    expect(config.guards).toEqual({
      maxSteps: 10,
      maxConsecutiveErrors: 3,
      oscillationWindow: 6,
      contextTokens: undefined,
      reservedOutputTokens: 2048,
      observationTokens: 2000,
      runTimeoutMs: 120_000,
      toolTimeoutMs: 30_000,
    });
    expect(config.storeUrl).toBe("sqlite://data/bot.sqlite");
    expect(config.approvalTimeoutMs).toBe(900_000);
    expect(config.slack).toBeUndefined();
    expect(config.discord).toBeUndefined();
  });

  it("treats empty values as unset", () => {
    expect(loadConfig({ AGENT_MAX_STEPS: "", OPENAI_API_KEY: "  " }).guards.maxSteps).toBe(10);
  });

  // The other kinds of value; whole numbers are checked against their own ranges below.
  it.each([
    ["OPENAI_BASE_URL", "localhost:11434", /^OPENAI_BASE_URL: expects an http\(s\) URL/],
    ["MEMORY_EXTRACT_FACTS", "maybe", /^MEMORY_EXTRACT_FACTS: expects yes or no \(true\/false, on\/off, 1\/0\) \(got "maybe"\)$/],
    ["TOOL_POLICY", "post_message=sometimes", /^TOOL_POLICY: expects name=approve\|allow\|deny pairs/],
    ["APPROVAL_SECRET", "short", /^APPROVAL_SECRET: expects at least 16 characters \(got "<hidden>"\)$/],
    ["SLACK_API_URL", "not a url", /^SLACK_API_URL: /],
    ["DISCORD_API_URL", "ftp://x", /^DISCORD_API_URL: expects an http\(s\) URL/],
    ["LOG_LEVEL", "loud", /^LOG_LEVEL: expects one of/],
  ])("%s=%s gives one line naming the variable", (variable, value, expected) => {
    const error = configErrorFor({ [variable]: value });
    expect(error.variable).toBe(variable);
    expect(error.message).toMatch(expected);
    expect(error.message).not.toContain("\n");
  });

  it("never echoes a secret's value", () => {
    const error = configErrorFor({ SLACK_BOT_TOKEN: "not-a-bot-token-but-secret" });
    expect(error.message).toBe('SLACK_BOT_TOKEN: expects a bot token starting with xoxb- (got "<hidden>")');
  });

  it("needs a Slack app token or signing secret with the bot token", () => {
    expect(configErrorFor({ SLACK_BOT_TOKEN: "xoxb-1" }).variable).toBe("SLACK_APP_TOKEN");
    expect(configErrorFor({ SLACK_APP_TOKEN: "xapp-1" }).variable).toBe("SLACK_BOT_TOKEN");
    expect(loadConfig({ SLACK_BOT_TOKEN: "xoxb-1", SLACK_APP_TOKEN: "xapp-1" }).slack?.mode).toEqual({
      kind: "socket",
      appToken: "xapp-1",
    });
    const http = loadConfig({ SLACK_BOT_TOKEN: "xoxb-1", SLACK_SIGNING_SECRET: "s", PORT: "8080" });
    expect(http.slack?.mode).toEqual({ kind: "http", signingSecret: "s" });
    expect(http.port).toBe(8080);
  });

  it("needs the Discord application id with the Discord token", () => {
    expect(configErrorFor({ DISCORD_TOKEN: "t" }).variable).toBe("DISCORD_APPLICATION_ID");
    expect(configErrorFor({ DISCORD_TOKEN: "t", DISCORD_APPLICATION_ID: "app" }).message).toMatch(/numeric application id/);
    const discord = loadConfig({ DISCORD_TOKEN: "t", DISCORD_APPLICATION_ID: "123", DISCORD_APPROVERS: "1, 2 ,," }).discord;
    expect(discord?.approvers).toEqual(["1", "2"]);
    expect(discord?.messageContent).toBe(false);
    expect(loadConfig({ DISCORD_TOKEN: "t", DISCORD_APPLICATION_ID: "123", DISCORD_MESSAGE_CONTENT: "true" }).discord?.messageContent).toBe(
      true,
    );
  });

  it("parses tool policies in order", () => {
    expect(loadConfig({ TOOL_POLICY: "post_message=approve, delete_*=deny" }).toolPolicy).toEqual([
      { pattern: "post_message", policy: "approve" },
      { pattern: "delete_*", policy: "deny" },
    ]);
  });
});

/** Every part of Config that can be off is on (both surfaces, the explorer), so every variable takes its place in it. */
const everythingOn = {
  SLACK_BOT_TOKEN: "xoxb-1",
  SLACK_SIGNING_SECRET: "s",
  DISCORD_TOKEN: "t",
  DISCORD_APPLICATION_ID: "123",
  ADMIN_TOKEN: "0123456789abcdef",
};
const declared = AREAS.flatMap((area) => Object.entries(area.variables));

describe("every numeric setting has a range", () => {
  /** The whole-number variables, each with its field in its area and the range its schema enforces. */
  const wholeNumbers = declared.flatMap(([field, variable]) => {
    const { schema } = variable;
    const inner = schema instanceof z.ZodPrefault || schema instanceof z.ZodOptional ? schema.unwrap() : schema;
    if (!(inner instanceof z.ZodNumber) || inner.minValue === null || inner.maxValue === null) return [];
    return [{ name: variable.name, field, range: variable.range, min: inner.minValue, max: inner.maxValue }];
  });

  /** The dotted paths in `config` that hold `value`. */
  function pathsHolding(config: unknown, value: number, path = ""): string[] {
    if (config === value) return [path];
    if (typeof config !== "object" || config === null) return [];
    return Object.entries(config).flatMap(([key, inner]) => pathsHolding(inner, value, path === "" ? key : `${path}.${key}`));
  }

  it("is enforced for every variable the docs show a range for", () => {
    const shownRanges = declared.filter(([, variable]) => /^\d+–\d+$/.test(variable.range)).map(([, variable]) => variable.name);
    expect(shownRanges).not.toHaveLength(0);
    expect(wholeNumbers.map((variable) => variable.name)).toEqual(shownRanges);
  });

  it.each(wholeNumbers)(
    "$name takes both ends of its schema's range, as the docs show it, and refuses one past either, a fraction and a word",
    ({ name, field, range, min, max }) => {
      expect(range).toBe(`${min}–${max}`);
      const atMin = loadConfig({ ...everythingOn, [name]: String(min) });
      const atMax = loadConfig({ ...everythingOn, [name]: String(max) });
      const landed = pathsHolding(atMin, min).filter((path) => pathsHolding(atMax, max).includes(path));
      expect(landed, "where the value lands in Config").toContainEqual(expect.stringMatching(new RegExp(`(^|\\.)${field}$`)));
      for (const outside of [min - 1, max + 1, min + 0.5, "many", `${min}s`]) {
        const error = configErrorFor({ [name]: String(outside) });
        expect(error.variable).toBe(name);
        expect(error.message).toBe(`${name}: expects a whole number from ${min} to ${max} (got "${outside}")`);
      }
    },
  );
});

describe("every documented default", () => {
  /** Variables whose docs show the default as one value (`10`, `yes`), not a phrase ("by model"). */
  const shownDefaults = declared.flatMap(([, variable]) => {
    const value = /^`([^`]+)`$/.exec(variable.shownDefault)?.[1];
    return value === undefined ? [] : [[variable.name, value] as const];
  });

  it.each(shownDefaults)("%s=%s set by hand loads as leaving it unset does", (name, value) => {
    expect(loadConfig({ ...everythingOn, [name]: value })).toEqual(loadConfig(everythingOn));
  });

  it("is found in the declarations", () => {
    expect(shownDefaults.map(([name]) => name)).toEqual(expect.arrayContaining(["AGENT_MAX_STEPS", "MEMORY_EXTRACT_FACTS", "STORE_URL"]));
  });
});

describe("yes/no settings", () => {
  it.each([
    ["TRUE", true],
    ["Yes", true],
    [" on ", true],
    ["1", true],
    ["False", false],
    ["NO", false],
    ["off", false],
    ["0", false],
  ])("MEMORY_EXTRACT_FACTS=%j reads as %s, in any case", (value, expected) => {
    expect(loadConfig({ MEMORY_EXTRACT_FACTS: value }).memory.extractFacts).toBe(expected);
  });
});

describe("the model for chat surfaces", () => {
  const discord = { DISCORD_TOKEN: "t", DISCORD_APPLICATION_ID: "123" };
  const slack = { SLACK_BOT_TOKEN: "xoxb-1", SLACK_APP_TOKEN: "xapp-1" };

  it.each([
    ["Slack", slack],
    ["Discord", discord],
  ])("%s without OPENAI_API_KEY is one line naming it", (_, env) => {
    let error: unknown;
    try {
      checkChatModel(loadConfig(env));
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toBe(
      "OPENAI_API_KEY: expects the model server's key when Slack or Discord is set up (OPENAI_API_KEY=demo answers with the offline demo model instead) (it is not set)",
    );
  });

  it("OPENAI_API_KEY=demo asks for the offline demo model by name; the console needs no key", () => {
    const demo = loadConfig({ ...slack, OPENAI_API_KEY: "demo" });
    expect(demo.model).toMatchObject({ apiKey: undefined, demoRequested: true });
    expect(() => checkChatModel(demo)).not.toThrow();
    expect(() => checkChatModel(loadConfig({}))).not.toThrow();
    expect(loadConfig({ ...discord, OPENAI_API_KEY: "sk-1" }).model).toMatchObject({ apiKey: "sk-1", demoRequested: false });
  });
});

describe("the approval key file", () => {
  it("defaults to approval.key in the working folder, outside the default store's data/ folder", () => {
    expect(loadConfig({}).approvalKeyFile).toBe(join(process.cwd(), "approval.key"));
  });

  it("is refused inside the SQLite store's folder, so a copy of that folder can't sign approvals", () => {
    const error = configErrorFor({ STORE_URL: "sqlite:///srv/bot/data/bot.sqlite", APPROVAL_KEY_FILE: "/srv/bot/data/keys/approval.key" });
    expect(error.message).toBe(
      "APPROVAL_KEY_FILE: expects a path outside the store's folder /srv/bot/data, so a copy of the store can't sign approvals (got \"/srv/bot/data/keys/approval.key\")",
    );
    expect(loadConfig({ STORE_URL: "sqlite:///srv/bot/data/bot.sqlite", APPROVAL_KEY_FILE: "/srv/bot/approval.key" }).approvalKeyFile).toBe(
      "/srv/bot/approval.key",
    );
    expect(loadConfig({ STORE_URL: "redis://localhost:6379", APPROVAL_KEY_FILE: "data/approval.key" }).approvalKeyFile).toBe(
      join(process.cwd(), "data/approval.key"),
    );
  });
});
