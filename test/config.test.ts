import { describe, expect, it } from "vitest";
import { join } from "node:path";
import { checkChatModel, loadConfig, type Config } from "../src/config.js";
import { ConfigError } from "../src/errors.js";

function errorFor(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error(`expected a ConfigError for ${JSON.stringify(env)}`);
}

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

  it.each([
    ["AGENT_MAX_STEPS", "abc", /^AGENT_MAX_STEPS: expects a whole number from 1 to 100 \(got "abc"\)$/],
    ["AGENT_MAX_STEPS", "0", /^AGENT_MAX_STEPS: expects a whole number from 1 to 100/],
    ["AGENT_MAX_CONSECUTIVE_ERRORS", "2.5", /^AGENT_MAX_CONSECUTIVE_ERRORS: expects a whole number/],
    ["AGENT_OSCILLATION_WINDOW", "-6", /^AGENT_OSCILLATION_WINDOW: expects a whole number from 2 to 50/],
    ["AGENT_CONTEXT_TOKENS", "lots", /^AGENT_CONTEXT_TOKENS: expects a whole number/],
    ["AGENT_RESERVED_OUTPUT_TOKENS", "x", /^AGENT_RESERVED_OUTPUT_TOKENS: /],
    ["AGENT_OBSERVATION_TOKENS", "x", /^AGENT_OBSERVATION_TOKENS: /],
    ["AGENT_RUN_TIMEOUT_MS", "2m", /^AGENT_RUN_TIMEOUT_MS: expects a whole number/],
    ["AGENT_TOOL_TIMEOUT_MS", "-1", /^AGENT_TOOL_TIMEOUT_MS: /],
    ["OPENAI_BASE_URL", "localhost:11434", /^OPENAI_BASE_URL: expects an http\(s\) URL/],
    ["OPENAI_TIMEOUT_MS", "soon", /^OPENAI_TIMEOUT_MS: /],
    ["OPENAI_MAX_RETRIES", "-1", /^OPENAI_MAX_RETRIES: expects a whole number from 0 to 10/],
    ["MAX_CONCURRENT_RUNS", "0", /^MAX_CONCURRENT_RUNS: /],
    ["MEMORY_EXTRACT_FACTS", "maybe", /^MEMORY_EXTRACT_FACTS: expects yes or no \(true\/false, on\/off, 1\/0\) \(got "maybe"\)$/],
    ["TOOL_POLICY", "post_message=sometimes", /^TOOL_POLICY: expects name=approve\|allow\|deny pairs/],
    ["APPROVAL_TIMEOUT_MS", "forever", /^APPROVAL_TIMEOUT_MS: /],
    ["APPROVAL_SECRET", "short", /^APPROVAL_SECRET: expects at least 16 characters \(got "<hidden>"\)$/],
    ["PORT", "70000", /^PORT: expects a whole number from 0 to 65535/],
    ["SLACK_API_URL", "not a url", /^SLACK_API_URL: /],
    ["DISCORD_API_URL", "ftp://x", /^DISCORD_API_URL: expects an http\(s\) URL/],
    ["LOG_LEVEL", "loud", /^LOG_LEVEL: expects one of/],
  ])("%s=%s gives one line naming the variable", (variable, value, expected) => {
    const error = errorFor({ [variable]: value });
    expect(error.variable).toBe(variable);
    expect(error.message).toMatch(expected);
    expect(error.message).not.toContain("\n");
  });

  it("never echoes a secret's value", () => {
    const error = errorFor({ SLACK_BOT_TOKEN: "not-a-bot-token-but-secret" });
    expect(error.message).toBe('SLACK_BOT_TOKEN: expects a bot token starting with xoxb- (got "<hidden>")');
  });

  it("needs a Slack app token or signing secret with the bot token", () => {
    expect(errorFor({ SLACK_BOT_TOKEN: "xoxb-1" }).variable).toBe("SLACK_APP_TOKEN");
    expect(errorFor({ SLACK_APP_TOKEN: "xapp-1" }).variable).toBe("SLACK_BOT_TOKEN");
    expect(loadConfig({ SLACK_BOT_TOKEN: "xoxb-1", SLACK_APP_TOKEN: "xapp-1" }).slack?.mode).toEqual({
      kind: "socket",
      appToken: "xapp-1",
    });
    const http = loadConfig({ SLACK_BOT_TOKEN: "xoxb-1", SLACK_SIGNING_SECRET: "s", PORT: "8080" });
    expect(http.slack?.mode).toEqual({ kind: "http", signingSecret: "s" });
    expect(http.port).toBe(8080);
  });

  it("needs the Discord application id with the Discord token", () => {
    expect(errorFor({ DISCORD_TOKEN: "t" }).variable).toBe("DISCORD_APPLICATION_ID");
    expect(errorFor({ DISCORD_TOKEN: "t", DISCORD_APPLICATION_ID: "app" }).message).toMatch(/numeric application id/);
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

describe("every numeric setting has a range", () => {
  const slackHttp = { SLACK_BOT_TOKEN: "xoxb-1", SLACK_SIGNING_SECRET: "s" };
  const slackPort = (config: Config) => (config.slack?.mode.kind === "http" ? config.port : undefined);
  // [variable, min, max, where the value lands]: the configuration table in docs/operations.md lists the same ranges.
  const ranges: Array<[string, number, number, (config: Config) => number | undefined]> = [
    ["OPENAI_TIMEOUT_MS", 1_000, 600_000, (config) => config.model.timeoutMs],
    ["OPENAI_MAX_RETRIES", 0, 10, (config) => config.model.maxRetries],
    ["AGENT_MAX_STEPS", 1, 100, (config) => config.guards.maxSteps],
    ["AGENT_MAX_CONSECUTIVE_ERRORS", 1, 20, (config) => config.guards.maxConsecutiveErrors],
    ["AGENT_OSCILLATION_WINDOW", 2, 50, (config) => config.guards.oscillationWindow],
    ["AGENT_CONTEXT_TOKENS", 1_024, 2_000_000, (config) => config.guards.contextTokens],
    ["AGENT_RESERVED_OUTPUT_TOKENS", 256, 131_072, (config) => config.guards.reservedOutputTokens],
    ["AGENT_OBSERVATION_TOKENS", 100, 100_000, (config) => config.guards.observationTokens],
    ["AGENT_RUN_TIMEOUT_MS", 1_000, 3_600_000, (config) => config.guards.runTimeoutMs],
    ["AGENT_TOOL_TIMEOUT_MS", 100, 600_000, (config) => config.guards.toolTimeoutMs],
    ["MAX_CONCURRENT_RUNS", 1, 1_000, (config) => config.maxConcurrentRuns],
    ["MEMORY_HISTORY_TURNS", 1, 100, (config) => config.memory.historyTurns],
    ["MEMORY_HISTORY_TOKENS", 100, 200_000, (config) => config.memory.historyTokens],
    ["MEMORY_MAX_FACTS", 1, 10_000, (config) => config.memory.maxFacts],
    ["MEMORY_RECALL_FACTS", 1, 100, (config) => config.memory.recallFacts],
    ["APPROVAL_TIMEOUT_MS", 1_000, 86_400_000, (config) => config.approvalTimeoutMs],
    ["PORT", 0, 65_535, slackPort],
  ];

  it.each(ranges)("%s accepts %i to %i and refuses one past either end", (variable, min, max, read) => {
    expect(read(loadConfig({ ...slackHttp, [variable]: String(min) }))).toBe(min);
    expect(read(loadConfig({ ...slackHttp, [variable]: String(max) }))).toBe(max);
    for (const outside of [min - 1, max + 1]) {
      const error = errorFor({ [variable]: String(outside) });
      expect(error.variable).toBe(variable);
      expect(error.message).toBe(`${variable}: expects a whole number from ${min} to ${max} (got "${outside}")`);
    }
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
    const error = errorFor({ STORE_URL: "sqlite:///srv/bot/data/bot.sqlite", APPROVAL_KEY_FILE: "/srv/bot/data/keys/approval.key" });
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
