import { describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.js";
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
    ["AGENT_MAX_STEPS", "abc", /^AGENT_MAX_STEPS: expects a whole number \(got "abc"\)$/],
    ["AGENT_MAX_STEPS", "0", /^AGENT_MAX_STEPS: expects a number above 0/],
    ["AGENT_MAX_CONSECUTIVE_ERRORS", "2.5", /^AGENT_MAX_CONSECUTIVE_ERRORS: expects a whole number/],
    ["AGENT_OSCILLATION_WINDOW", "-6", /^AGENT_OSCILLATION_WINDOW: expects a number above 0/],
    ["AGENT_CONTEXT_TOKENS", "lots", /^AGENT_CONTEXT_TOKENS: expects a whole number/],
    ["AGENT_RESERVED_OUTPUT_TOKENS", "x", /^AGENT_RESERVED_OUTPUT_TOKENS: /],
    ["AGENT_OBSERVATION_TOKENS", "x", /^AGENT_OBSERVATION_TOKENS: /],
    ["AGENT_RUN_TIMEOUT_MS", "2m", /^AGENT_RUN_TIMEOUT_MS: expects a whole number/],
    ["AGENT_TOOL_TIMEOUT_MS", "-1", /^AGENT_TOOL_TIMEOUT_MS: /],
    ["OPENAI_BASE_URL", "localhost:11434", /^OPENAI_BASE_URL: expects an http\(s\) URL/],
    ["OPENAI_TIMEOUT_MS", "soon", /^OPENAI_TIMEOUT_MS: /],
    ["OPENAI_MAX_RETRIES", "-1", /^OPENAI_MAX_RETRIES: expects 0 or more/],
    ["MAX_CONCURRENT_RUNS", "0", /^MAX_CONCURRENT_RUNS: /],
    ["MEMORY_EXTRACT_FACTS", "maybe", /^MEMORY_EXTRACT_FACTS: expects true or false/],
    ["TOOL_POLICY", "post_message=sometimes", /^TOOL_POLICY: expects name=approve\|allow\|deny pairs/],
    ["APPROVAL_TIMEOUT_MS", "forever", /^APPROVAL_TIMEOUT_MS: /],
    ["APPROVAL_SECRET", "short", /^APPROVAL_SECRET: expects at least 16 characters \(got "<hidden>"\)$/],
    ["PORT", "70000", /^PORT: expects a port number/],
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
    expect(loadConfig({ SLACK_BOT_TOKEN: "xoxb-1", SLACK_APP_TOKEN: "xapp-1" }).slack?.mode).toEqual({ kind: "socket", appToken: "xapp-1" });
    expect(loadConfig({ SLACK_BOT_TOKEN: "xoxb-1", SLACK_SIGNING_SECRET: "s", PORT: "8080" }).slack?.mode).toEqual({ kind: "http", signingSecret: "s", port: 8080 });
  });

  it("needs the Discord application id with the Discord token", () => {
    expect(errorFor({ DISCORD_TOKEN: "t" }).variable).toBe("DISCORD_APPLICATION_ID");
    expect(errorFor({ DISCORD_TOKEN: "t", DISCORD_APPLICATION_ID: "app" }).message).toMatch(/numeric application id/);
    const discord = loadConfig({ DISCORD_TOKEN: "t", DISCORD_APPLICATION_ID: "123", DISCORD_APPROVERS: "1, 2 ,," }).discord;
    expect(discord?.approvers).toEqual(["1", "2"]);
    expect(discord?.messageContent).toBe(false);
    expect(loadConfig({ DISCORD_TOKEN: "t", DISCORD_APPLICATION_ID: "123", DISCORD_MESSAGE_CONTENT: "true" }).discord?.messageContent).toBe(true);
  });

  it("parses tool policies in order", () => {
    expect(loadConfig({ TOOL_POLICY: "post_message=approve, delete_*=deny" }).toolPolicy).toEqual([
      { pattern: "post_message", policy: "approve" },
      { pattern: "delete_*", policy: "deny" },
    ]);
  });
});
