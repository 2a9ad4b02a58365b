// The rules that tie one variable to another, in one place. Each says which variable is wrong
// and what it expects; loadConfig reports the first broken one like a bad value. The two at the
// end are checked when the app starts, not when a tool or a replay only reads a setting or two.
import { ConfigError } from "../errors.js";
import type { Config, Env } from "./areas.js";
import { DEMO_KEY } from "./model.js";

export interface BrokenRule {
  readonly variable: keyof Env;
  readonly expected: string;
  /** What the variable holds; undefined when it is not set. */
  readonly got: string | undefined;
}

export interface Rule {
  /** The rule in one sentence, for docs/configuration.md. */
  readonly says: string;
  readonly check: (env: Env) => BrokenRule | undefined;
}

const splitRolesNeedRedis: Rule = {
  says: "`BOT_ROLE` `ingress` or `worker` needs a `redis://` `STORE_URL`: split roles hand work to each other through the shared queue.",
  check: (env) =>
    env.BOT_ROLE !== "all" && !/^rediss?:\/\//.test(env.STORE_URL)
      ? {
          variable: "BOT_ROLE",
          expected: "expects all unless STORE_URL is redis://… (ingress and worker processes share work through Redis)",
          got: env.BOT_ROLE,
        }
      : undefined,
};

const slackTokensNeedTheBotToken: Rule = {
  says: "`SLACK_APP_TOKEN` or `SLACK_SIGNING_SECRET` needs `SLACK_BOT_TOKEN`, or `SLACK_CLIENT_ID` for an app installed in several workspaces.",
  check: (env) =>
    !env.SLACK_BOT_TOKEN && !env.SLACK_CLIENT_ID && (env.SLACK_APP_TOKEN || env.SLACK_SIGNING_SECRET)
      ? {
          variable: "SLACK_BOT_TOKEN",
          expected: "expects the bot token (xoxb-…) when SLACK_APP_TOKEN or SLACK_SIGNING_SECRET is set",
          got: undefined,
        }
      : undefined,
};

const slackBotTokenNeedsAMode: Rule = {
  says: "`SLACK_BOT_TOKEN` (or `SLACK_CLIENT_ID`) needs `SLACK_APP_TOKEN` (Socket Mode) or `SLACK_SIGNING_SECRET` (HTTP mode); with both, Socket Mode is used.",
  check: (env) => {
    const given = env.SLACK_BOT_TOKEN ? "SLACK_BOT_TOKEN" : env.SLACK_CLIENT_ID ? "SLACK_CLIENT_ID" : undefined;
    return given && !env.SLACK_APP_TOKEN && !env.SLACK_SIGNING_SECRET
      ? {
          variable: "SLACK_APP_TOKEN",
          expected: `expects an app-level token (Socket Mode) or SLACK_SIGNING_SECRET (HTTP mode) with ${given}`,
          got: undefined,
        }
      : undefined;
  },
};

const slackInstallNeedsItsParts: Rule = {
  says: "`SLACK_CLIENT_ID` needs `SLACK_CLIENT_SECRET` and `PUBLIC_URL` (where the install comes back); with `SLACK_BOT_TOKEN` set, the bot serves that one workspace and installs nowhere.",
  check: (env) => {
    if (!env.SLACK_CLIENT_ID || env.SLACK_BOT_TOKEN) return undefined;
    if (!env.SLACK_CLIENT_SECRET)
      return { variable: "SLACK_CLIENT_SECRET", expected: "expects the app's Client Secret with SLACK_CLIENT_ID", got: undefined };
    if (!env.PUBLIC_URL)
      return {
        variable: "PUBLIC_URL",
        expected:
          "expects the http(s) address the bot is reached at with SLACK_CLIENT_ID (the install comes back to PUBLIC_URL/slack/oauth_redirect)",
        got: undefined,
      };
    return undefined;
  },
};

const discordTokenNeedsTheApplicationId: Rule = {
  says: "`DISCORD_TOKEN` needs `DISCORD_APPLICATION_ID`.",
  check: (env) =>
    env.DISCORD_TOKEN && !env.DISCORD_APPLICATION_ID
      ? { variable: "DISCORD_APPLICATION_ID", expected: "expects the numeric application id when DISCORD_TOKEN is set", got: undefined }
      : undefined,
};

const explorerPortNeedsTheToken: Rule = {
  says: "`ADMIN_PORT` needs `ADMIN_TOKEN` (the explorer is off without it).",
  check: (env) =>
    env.ADMIN_PORT !== undefined && env.ADMIN_TOKEN === undefined
      ? {
          variable: "ADMIN_PORT",
          expected: "expects ADMIN_TOKEN to be set too (the explorer is off without it)",
          got: String(env.ADMIN_PORT),
        }
      : undefined,
};

/** In the order they are checked: the first broken one is reported. */
export const CROSS_FIELD_RULES: readonly Rule[] = [
  splitRolesNeedRedis,
  slackTokensNeedTheBotToken,
  slackBotTokenNeedsAMode,
  slackInstallNeedsItsParts,
  discordTokenNeedsTheApplicationId,
  explorerPortNeedsTheToken,
];

export function firstBrokenRule(env: Env): BrokenRule | undefined {
  for (const rule of CROSS_FIELD_RULES) {
    const broken = rule.check(env);
    if (broken) return broken;
  }
  return undefined;
}

/** What the two checks below say, for docs/configuration.md. */
export const START_RULES: readonly string[] = [
  "With Slack or Discord set up, `OPENAI_API_KEY` must be set (`demo` asks for the offline demo model by name); the console needs no key.",
  "The context window (`AGENT_CONTEXT_TOKENS`, or the model's own) must be larger than `AGENT_RESERVED_OUTPUT_TOKENS`.",
];

/** Slack or Discord answer real people: the offline demo model only when asked for by name. */
export function checkChatModel(config: Config): void {
  if ((config.slack || config.discord) && !config.model.apiKey && !config.model.demoRequested) {
    throw new ConfigError(
      "OPENAI_API_KEY",
      `expects the model server's key when Slack or Discord is set up (OPENAI_API_KEY=${DEMO_KEY} answers with the offline demo model instead)`,
      undefined,
    );
  }
}

/**
 * The context window must leave room beside the tokens kept for the reply. Checked at start for
 * OPENAI_MODEL's window, and by each loop setup for its own model's (a channel may pick another).
 */
export function checkContextWindow(contextWindow: number, reservedOutputTokens: number): void {
  if (contextWindow - reservedOutputTokens <= 0) {
    throw new ConfigError(
      "AGENT_CONTEXT_TOKENS",
      `expects a window larger than AGENT_RESERVED_OUTPUT_TOKENS (${reservedOutputTokens})`,
      String(contextWindow),
    );
  }
}
