// The rules between variables (src/config/rules.ts), one test each: a broken rule stops the start
// with one line naming the variable, like a bad value; the first broken one is the one named.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startApp } from "../../src/app.js";
import { checkChatModel, checkContextWindow, loadConfig } from "../../src/config.js";
import { ConfigError } from "../../src/errors.js";
import { temporaryFolder } from "../support/temporary-folder.js";
import { configErrorFor } from "../support/config-error.js";

const messageFor = (env: Record<string, string>): string => configErrorFor(env).message;

describe("rules checked with the environment", () => {
  it("BOT_ROLE ingress or worker needs a Redis STORE_URL", () => {
    expect(messageFor({ BOT_ROLE: "ingress" })).toBe(
      'BOT_ROLE: expects all unless STORE_URL is redis://… (ingress and worker processes share work through Redis) (got "ingress")',
    );
    expect(loadConfig({ BOT_ROLE: "worker", STORE_URL: "rediss://h:6380" }).role).toBe("worker");
  });

  it("APPROVAL_KEY_FILE outside an SQLite store's folder, also when it is the default", () => {
    expect(messageFor({ STORE_URL: "sqlite:///srv/bot/data/bot.sqlite", APPROVAL_KEY_FILE: "/srv/bot/data/approval.key" })).toBe(
      "APPROVAL_KEY_FILE: expects a path outside the store's folder /srv/bot/data, so a copy of the store can't sign approvals (got \"/srv/bot/data/approval.key\")",
    );
    // A store in the working folder holds the default approval.key too.
    expect(messageFor({ STORE_URL: "sqlite://bot.sqlite" })).toMatch(
      /^APPROVAL_KEY_FILE: expects a path outside .* \(got "approval.key"\)$/,
    );
    expect(loadConfig({ STORE_URL: "redis://h:6379", APPROVAL_KEY_FILE: "data/approval.key" }).approvalKeyFile).toBe(
      join(process.cwd(), "data/approval.key"),
    );
  });

  it("SLACK_APP_TOKEN or SLACK_SIGNING_SECRET needs SLACK_BOT_TOKEN", () => {
    const expected = "SLACK_BOT_TOKEN: expects the bot token (xoxb-…) when SLACK_APP_TOKEN or SLACK_SIGNING_SECRET is set (it is not set)";
    expect(messageFor({ SLACK_APP_TOKEN: "xapp-1" })).toBe(expected);
    expect(messageFor({ SLACK_SIGNING_SECRET: "s" })).toBe(expected);
  });

  it("SLACK_BOT_TOKEN needs an app token or a signing secret; with both, Socket Mode", () => {
    expect(messageFor({ SLACK_BOT_TOKEN: "xoxb-1" })).toBe(
      "SLACK_APP_TOKEN: expects an app-level token (Socket Mode) or SLACK_SIGNING_SECRET (HTTP mode) with SLACK_BOT_TOKEN (it is not set)",
    );
    expect(loadConfig({ SLACK_BOT_TOKEN: "xoxb-1", SLACK_APP_TOKEN: "xapp-1", SLACK_SIGNING_SECRET: "s" }).slack?.mode.kind).toBe("socket");
  });

  it("DISCORD_TOKEN needs DISCORD_APPLICATION_ID (an id alone turns nothing on)", () => {
    expect(messageFor({ DISCORD_TOKEN: "t" })).toBe(
      "DISCORD_APPLICATION_ID: expects the numeric application id when DISCORD_TOKEN is set (it is not set)",
    );
    expect(loadConfig({ DISCORD_APPLICATION_ID: "123" }).discord).toBeUndefined();
  });

  it("ADMIN_PORT needs ADMIN_TOKEN", () => {
    expect(messageFor({ ADMIN_PORT: "9090" })).toBe(
      'ADMIN_PORT: expects ADMIN_TOKEN to be set too (the explorer is off without it) (got "9090")',
    );
  });

  it("a bad value is named before a broken rule, and the first broken rule before the others", () => {
    expect(messageFor({ ADMIN_PORT: "70000" })).toBe('ADMIN_PORT: expects a whole number from 0 to 65535 (got "70000")');
    expect(messageFor({ ADMIN_PORT: "9090", BOT_ROLE: "worker", DISCORD_TOKEN: "t" })).toMatch(/^BOT_ROLE: /);
    expect(messageFor({ ADMIN_PORT: "9090", DISCORD_TOKEN: "t" })).toMatch(/^DISCORD_APPLICATION_ID: /);
  });
});

describe("rules checked at start", () => {
  it("Slack or Discord needs OPENAI_API_KEY, or demo by name", () => {
    expect(() => checkChatModel(loadConfig({ DISCORD_TOKEN: "t", DISCORD_APPLICATION_ID: "1" }))).toThrow(/^OPENAI_API_KEY: /);
    expect(() => checkChatModel(loadConfig({ DISCORD_TOKEN: "t", DISCORD_APPLICATION_ID: "1", OPENAI_API_KEY: "demo" }))).not.toThrow();
  });

  it("the context window must be larger than AGENT_RESERVED_OUTPUT_TOKENS", () => {
    expect(() => checkContextWindow(2048, 2048)).toThrow(
      new ConfigError("AGENT_CONTEXT_TOKENS", "expects a window larger than AGENT_RESERVED_OUTPUT_TOKENS (2048)", "2048"),
    );
    expect(() => checkContextWindow(2049, 2048)).not.toThrow();
  });

  it("the model's own window counts too, and the start stops before the store opens", async () => {
    const folder = await temporaryFolder();
    try {
      const file = join(folder.path, "bot.sqlite");
      const started = await startApp({ OPENAI_MODEL: "gpt-4", AGENT_RESERVED_OUTPUT_TOKENS: "8192", STORE_URL: `sqlite://${file}` });
      expect(started).toEqual({
        kind: "failed",
        message: 'Configuration error: AGENT_CONTEXT_TOKENS: expects a window larger than AGENT_RESERVED_OUTPUT_TOKENS (8192) (got "8192")',
      });
      expect(existsSync(file)).toBe(false);
    } finally {
      await folder.remove();
    }
  });
});
