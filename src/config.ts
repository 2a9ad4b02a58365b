// Every setting comes from the environment and is checked here, once, at start.
// A bad value stops the process with one line naming the variable (see src/main.ts).
import { z } from "zod";
import { ConfigError } from "./errors.js";

const SECRET_VARIABLES = new Set([
  "OPENAI_API_KEY",
  "SLACK_BOT_TOKEN",
  "SLACK_APP_TOKEN",
  "SLACK_SIGNING_SECRET",
  "DISCORD_TOKEN",
  "APPROVAL_SECRET",
]);

const positiveInt = (fallback: number) =>
  z.coerce.number({ error: "expects a whole number" }).int("expects a whole number").positive("expects a number above 0").default(fallback);

const optionalPositiveInt = z.coerce.number({ error: "expects a whole number" }).int("expects a whole number").positive("expects a number above 0").optional();

const httpUrl = z.url({ protocol: /^https?$/, error: "expects an http(s) URL" });

const idList = z
  .string()
  .transform((value) => value.split(",").map((id) => id.trim()).filter((id) => id.length > 0))
  .default([]);

const booleanFlag = (fallback: boolean) =>
  z
    .enum(["true", "false", "1", "0", "yes", "no"], { error: "expects true or false" })
    .transform((value) => value === "true" || value === "1" || value === "yes")
    .default(fallback);

export const ToolPolicyValue = z.enum(["approve", "allow", "deny"]);
export type ToolPolicyValue = z.infer<typeof ToolPolicyValue>;

export interface ToolPolicyRule {
  readonly pattern: string;
  readonly policy: ToolPolicyValue;
}

const toolPolicy = z
  .string()
  .transform((value, context): ToolPolicyRule[] => {
    const rules: ToolPolicyRule[] = [];
    for (const part of value.split(",").map((entry) => entry.trim()).filter(Boolean)) {
      const [pattern, policy, ...rest] = part.split("=").map((piece) => piece.trim());
      const parsed = ToolPolicyValue.safeParse(policy);
      if (!pattern || rest.length > 0 || !parsed.success) {
        context.addIssue({ code: "custom", message: `expects name=approve|allow|deny pairs separated by commas ("${part}" is not one)` });
        return z.NEVER;
      }
      rules.push({ pattern, policy: parsed.data });
    }
    return rules;
  })
  .default([]);

const EnvSchema = z.object({
  OPENAI_API_KEY: z.string().optional(),
  OPENAI_BASE_URL: httpUrl.optional(),
  OPENAI_MODEL: z.string().default("gpt-4o-mini"),
  OPENAI_TIMEOUT_MS: positiveInt(60_000),
  OPENAI_MAX_RETRIES: z.coerce.number({ error: "expects a whole number" }).int("expects a whole number").min(0, "expects 0 or more").default(3),

  AGENT_MAX_STEPS: positiveInt(10),
  AGENT_MAX_CONSECUTIVE_ERRORS: positiveInt(3),
  AGENT_OSCILLATION_WINDOW: positiveInt(6),
  AGENT_CONTEXT_TOKENS: optionalPositiveInt,
  AGENT_RESERVED_OUTPUT_TOKENS: positiveInt(2048),
  AGENT_OBSERVATION_TOKENS: positiveInt(2000),
  AGENT_RUN_TIMEOUT_MS: positiveInt(120_000),
  AGENT_TOOL_TIMEOUT_MS: positiveInt(30_000),

  STORE_URL: z.string().default("sqlite://data/bot.sqlite"),
  MAX_CONCURRENT_RUNS: positiveInt(8),
  MEMORY_HISTORY_TURNS: positiveInt(10),
  MEMORY_HISTORY_TOKENS: positiveInt(4000),
  MEMORY_MAX_FACTS: positiveInt(200),
  MEMORY_RECALL_FACTS: positiveInt(8),
  MEMORY_EXTRACT_FACTS: booleanFlag(true),

  TOOL_POLICY: toolPolicy,
  APPROVAL_TIMEOUT_MS: positiveInt(15 * 60_000),
  APPROVAL_SECRET: z.string().min(16, "expects at least 16 characters").optional(),

  SLACK_BOT_TOKEN: z.string().startsWith("xoxb-", "expects a bot token starting with xoxb-").optional(),
  SLACK_APP_TOKEN: z.string().startsWith("xapp-", "expects an app-level token starting with xapp-").optional(),
  SLACK_SIGNING_SECRET: z.string().optional(),
  SLACK_API_URL: httpUrl.optional(),
  SLACK_APPROVERS: idList,
  PORT: z.coerce.number({ error: "expects a port number" }).int("expects a port number").min(0, "expects a port number").max(65535, "expects a port number").default(3000),

  DISCORD_TOKEN: z.string().optional(),
  DISCORD_APPLICATION_ID: z.string().regex(/^\d+$/, "expects the numeric application id").optional(),
  DISCORD_API_URL: httpUrl.optional(),
  DISCORD_GUILD_ID: z.string().regex(/^\d+$/, "expects a numeric guild id").optional(),
  DISCORD_APPROVERS: idList,
  DISCORD_APPROVER_ROLE: z.string().regex(/^\d+$/, "expects a numeric role id").optional(),
  DISCORD_MESSAGE_CONTENT: booleanFlag(false),

  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"], { error: "expects one of fatal, error, warn, info, debug, trace, silent" }).default("info"),
});

type Env = z.infer<typeof EnvSchema>;

export interface GuardLimits {
  readonly maxSteps: number;
  readonly maxConsecutiveErrors: number;
  readonly oscillationWindow: number;
  /** Undefined: take the model's default window from the table. */
  readonly contextTokens?: number;
  readonly reservedOutputTokens: number;
  readonly observationTokens: number;
  readonly runTimeoutMs: number;
  readonly toolTimeoutMs: number;
}

export interface Config {
  readonly model: {
    readonly apiKey?: string;
    readonly baseUrl?: string;
    readonly name: string;
    readonly timeoutMs: number;
    readonly maxRetries: number;
  };
  readonly guards: GuardLimits;
  readonly storeUrl: string;
  readonly maxConcurrentRuns: number;
  readonly memory: {
    readonly historyTurns: number;
    readonly historyTokens: number;
    readonly maxFacts: number;
    readonly recallFacts: number;
    readonly extractFacts: boolean;
  };
  readonly toolPolicy: readonly ToolPolicyRule[];
  readonly approvalTimeoutMs: number;
  /** Signs stored approvals; when unset one is generated and kept in the store. */
  readonly approvalSecret?: string;
  readonly slack?: {
    readonly botToken: string;
    readonly mode: { readonly kind: "socket"; readonly appToken: string } | { readonly kind: "http"; readonly signingSecret: string; readonly port: number };
    readonly apiUrl?: string;
    readonly approvers: readonly string[];
  };
  readonly discord?: {
    readonly token: string;
    readonly applicationId: string;
    readonly apiUrl?: string;
    readonly guildId?: string;
    readonly approvers: readonly string[];
    readonly approverRole?: string;
    /** The privileged Message Content intent: lets read_channel see other people's text. */
    readonly messageContent?: boolean;
  };
  readonly logLevel: Env["LOG_LEVEL"];
}

/** Parses the environment; throws ConfigError naming the first bad variable. */
export function loadConfig(source: NodeJS.ProcessEnv = process.env): Config {
  const present = Object.fromEntries(Object.entries(source).filter(([, value]) => value !== undefined && value.trim() !== ""));
  const result = EnvSchema.safeParse(present);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const variable = String(issue.path[0] ?? "environment");
    const raw = present[variable];
    throw new ConfigError(variable, issue.message, SECRET_VARIABLES.has(variable) && raw !== undefined ? "<hidden>" : raw);
  }
  return toConfig(result.data);
}

function toConfig(env: Env): Config {
  return {
    model: {
      apiKey: env.OPENAI_API_KEY,
      baseUrl: env.OPENAI_BASE_URL,
      name: env.OPENAI_MODEL,
      timeoutMs: env.OPENAI_TIMEOUT_MS,
      maxRetries: env.OPENAI_MAX_RETRIES,
    },
    guards: {
      maxSteps: env.AGENT_MAX_STEPS,
      maxConsecutiveErrors: env.AGENT_MAX_CONSECUTIVE_ERRORS,
      oscillationWindow: env.AGENT_OSCILLATION_WINDOW,
      contextTokens: env.AGENT_CONTEXT_TOKENS,
      reservedOutputTokens: env.AGENT_RESERVED_OUTPUT_TOKENS,
      observationTokens: env.AGENT_OBSERVATION_TOKENS,
      runTimeoutMs: env.AGENT_RUN_TIMEOUT_MS,
      toolTimeoutMs: env.AGENT_TOOL_TIMEOUT_MS,
    },
    storeUrl: env.STORE_URL,
    maxConcurrentRuns: env.MAX_CONCURRENT_RUNS,
    memory: {
      historyTurns: env.MEMORY_HISTORY_TURNS,
      historyTokens: env.MEMORY_HISTORY_TOKENS,
      maxFacts: env.MEMORY_MAX_FACTS,
      recallFacts: env.MEMORY_RECALL_FACTS,
      extractFacts: env.MEMORY_EXTRACT_FACTS,
    },
    toolPolicy: env.TOOL_POLICY,
    approvalTimeoutMs: env.APPROVAL_TIMEOUT_MS,
    approvalSecret: env.APPROVAL_SECRET,
    slack: slackConfig(env),
    discord: discordConfig(env),
    logLevel: env.LOG_LEVEL,
  };
}

function slackConfig(env: Env): Config["slack"] {
  if (!env.SLACK_BOT_TOKEN) {
    if (env.SLACK_APP_TOKEN || env.SLACK_SIGNING_SECRET) {
      throw new ConfigError("SLACK_BOT_TOKEN", "expects the bot token (xoxb-…) when SLACK_APP_TOKEN or SLACK_SIGNING_SECRET is set", undefined);
    }
    return undefined;
  }
  const base = { botToken: env.SLACK_BOT_TOKEN, apiUrl: env.SLACK_API_URL, approvers: env.SLACK_APPROVERS };
  if (env.SLACK_APP_TOKEN) return { ...base, mode: { kind: "socket", appToken: env.SLACK_APP_TOKEN } };
  if (env.SLACK_SIGNING_SECRET) return { ...base, mode: { kind: "http", signingSecret: env.SLACK_SIGNING_SECRET, port: env.PORT } };
  throw new ConfigError("SLACK_APP_TOKEN", "expects an app-level token (Socket Mode) or SLACK_SIGNING_SECRET (HTTP mode) with SLACK_BOT_TOKEN", undefined);
}

function discordConfig(env: Env): Config["discord"] {
  if (!env.DISCORD_TOKEN) return undefined;
  if (!env.DISCORD_APPLICATION_ID) {
    throw new ConfigError("DISCORD_APPLICATION_ID", "expects the numeric application id when DISCORD_TOKEN is set", undefined);
  }
  return {
    token: env.DISCORD_TOKEN,
    applicationId: env.DISCORD_APPLICATION_ID,
    apiUrl: env.DISCORD_API_URL,
    guildId: env.DISCORD_GUILD_ID,
    approvers: env.DISCORD_APPROVERS,
    approverRole: env.DISCORD_APPROVER_ROLE,
    messageContent: env.DISCORD_MESSAGE_CONTENT,
  };
}
