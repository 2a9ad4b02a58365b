// Every setting comes from the environment and is checked here, once, at start.
// A bad value stops the process with one line naming the variable (see src/main.ts).
import { dirname, resolve, sep } from "node:path";
import { z } from "zod";
import { ModelPricesVariable } from "./cost/prices.js";
import { ConfigError } from "./errors.js";
import { timeZoneName } from "./time-zone.js";

/** OPENAI_API_KEY=demo asks for the offline demo model by name (needed when a chat surface is set up). */
const DEMO_KEY = "demo";

const SECRET_VARIABLES = new Set([
  "OPENAI_API_KEY",
  "SLACK_BOT_TOKEN",
  "SLACK_APP_TOKEN",
  "SLACK_SIGNING_SECRET",
  "DISCORD_TOKEN",
  "APPROVAL_SECRET",
  "ADMIN_TOKEN",
]);

/** A whole number within [min, max]; every numeric setting has a range so a typo can't disable a guard. */
const wholeNumber = (min: number, max: number) => {
  const expected = `expects a whole number from ${min} to ${max}`;
  return z.coerce.number({ error: expected }).int(expected).min(min, expected).max(max, expected);
};

const httpUrl = z.url({ protocol: /^https?$/, error: "expects an http(s) URL" });

const idList = z
  .string()
  .transform((value) =>
    value
      .split(",")
      .map((id) => id.trim())
      .filter((id) => id.length > 0),
  )
  .default([]);

const TRUE_WORDS = new Set(["true", "1", "yes", "on"]);

/** true/false, 1/0, yes/no or on/off, in any case. */
const booleanFlag = (fallback: boolean) =>
  z
    .string()
    .transform((value) => value.trim().toLowerCase())
    .pipe(z.enum(["true", "false", "1", "0", "yes", "no", "on", "off"], { error: "expects true or false" }))
    .transform((value) => TRUE_WORDS.has(value))
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
    for (const part of value
      .split(",")
      .map((entry) => entry.trim())
      .filter(Boolean)) {
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
  OPENAI_TIMEOUT_MS: wholeNumber(1_000, 600_000).default(60_000),
  OPENAI_MAX_RETRIES: wholeNumber(0, 10).default(3),

  AGENT_MAX_STEPS: wholeNumber(1, 100).default(10),
  AGENT_MAX_CONSECUTIVE_ERRORS: wholeNumber(1, 20).default(3),
  AGENT_OSCILLATION_WINDOW: wholeNumber(2, 50).default(6),
  AGENT_CONTEXT_TOKENS: wholeNumber(1_024, 2_000_000).optional(),
  AGENT_RESERVED_OUTPUT_TOKENS: wholeNumber(256, 131_072).default(2048),
  AGENT_OBSERVATION_TOKENS: wholeNumber(100, 100_000).default(2000),
  AGENT_RUN_TIMEOUT_MS: wholeNumber(1_000, 3_600_000).default(120_000),
  AGENT_TOOL_TIMEOUT_MS: wholeNumber(100, 600_000).default(30_000),

  STORE_URL: z.string().default("sqlite://data/bot.sqlite"),
  MAX_CONCURRENT_RUNS: wholeNumber(1, 1_000).default(8),
  BOT_ROLE: z.enum(["all", "ingress", "worker"], { error: "expects all, ingress or worker" }).default("all"),
  MEMORY_HISTORY_TURNS: wholeNumber(1, 100).default(10),
  MEMORY_HISTORY_TOKENS: wholeNumber(100, 200_000).default(4000),
  MEMORY_MAX_FACTS: wholeNumber(1, 10_000).default(200),
  MEMORY_RECALL_FACTS: wholeNumber(1, 100).default(8),
  MEMORY_EXTRACT_FACTS: booleanFlag(true),

  TOOL_POLICY: toolPolicy,
  MCP_CONFIG: z.string().trim().min(1, "expects the path of the MCP servers file (JSON)").optional(),
  BOT_SETTINGS: z.string().trim().min(1, "expects the path of a JSON or YAML settings file").optional(),
  APPROVAL_TIMEOUT_MS: wholeNumber(1_000, 86_400_000).default(15 * 60_000),
  APPROVAL_SECRET: z.string().min(16, "expects at least 16 characters").optional(),
  APPROVAL_KEY_FILE: z.string().default("approval.key"),

  SLACK_BOT_TOKEN: z.string().startsWith("xoxb-", "expects a bot token starting with xoxb-").optional(),
  SLACK_APP_TOKEN: z.string().startsWith("xapp-", "expects an app-level token starting with xapp-").optional(),
  SLACK_SIGNING_SECRET: z.string().optional(),
  SLACK_API_URL: httpUrl.optional(),
  SLACK_APPROVERS: idList,
  PORT: wholeNumber(0, 65_535).default(3000),

  DISCORD_TOKEN: z.string().optional(),
  DISCORD_APPLICATION_ID: z.string().regex(/^\d+$/, "expects the numeric application id").optional(),
  DISCORD_API_URL: httpUrl.optional(),
  DISCORD_GUILD_ID: z.string().regex(/^\d+$/, "expects a numeric guild id").optional(),
  DISCORD_APPROVERS: idList,
  DISCORD_APPROVER_ROLE: z.string().regex(/^\d+$/, "expects a numeric role id").optional(),
  DISCORD_MESSAGE_CONTENT: booleanFlag(false),

  OTEL_EXPORTER_OTLP_ENDPOINT: httpUrl.optional(),

  // Schedules (src/runs/schedules): the settings file's `schedules` entry of a channel overrides the first three there.
  SCHEDULE_MIN_INTERVAL_MINUTES: wholeNumber(1, 1_440).default(15),
  SCHEDULE_MAX_PER_USER: wholeNumber(1, 1_000).default(10),
  SCHEDULE_MAX_PER_CHANNEL: wholeNumber(1, 10_000).default(20),
  SCHEDULE_CATCH_UP_MINUTES: wholeNumber(0, 1_440).default(60),
  SCHEDULE_DEFAULT_TZ: z
    .string()
    .transform((value, context) => {
      const name = timeZoneName(value);
      if (name) return name;
      context.addIssue({ code: "custom", message: "expects an IANA timezone like Europe/Berlin or America/New_York, or UTC" });
      return z.NEVER;
    })
    .optional(),
  // Run records, prices and the explorer (/admin): one block.
  RUN_RECORD_MAX_BYTES: wholeNumber(8_192, 16_777_216).default(65_536),
  RUN_RECORD_CONTENT: z.enum(["full", "metadata"], { error: "expects full or metadata" }).default("full"),
  RUN_RETENTION_DAYS: wholeNumber(1, 3_650).default(30),
  RUN_RETENTION_MAX: wholeNumber(100, 10_000_000).default(100_000),
  MODEL_PRICES: ModelPricesVariable.default({}),
  ADMIN_TOKEN: z.string().min(16, "expects at least 16 characters").optional(),
  ADMIN_PORT: wholeNumber(0, 65_535).optional(),
  ADMIN_HOST: z.string().trim().min(1, "expects a host name or address to listen on").default("127.0.0.1"),

  LOG_LEVEL: z
    .enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"], {
      error: "expects one of fatal, error, warn, info, debug, trace, silent",
    })
    .default("info"),
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
    /** Undefined: the offline demo model. */
    readonly apiKey?: string;
    /** OPENAI_API_KEY=demo: the demo model was asked for, not fallen back to. */
    readonly demoRequested: boolean;
    readonly baseUrl?: string;
    readonly name: string;
    readonly timeoutMs: number;
    readonly maxRetries: number;
  };
  readonly guards: GuardLimits;
  readonly storeUrl: string;
  readonly maxConcurrentRuns: number;
  /** BOT_ROLE: `ingress` only records and queues accepted messages, `worker` only runs them, `all` does both. */
  readonly role: "all" | "ingress" | "worker";
  readonly memory: {
    readonly historyTurns: number;
    readonly historyTokens: number;
    readonly maxFacts: number;
    readonly recallFacts: number;
    readonly extractFacts: boolean;
  };
  readonly toolPolicy: readonly ToolPolicyRule[];
  /** MCP_CONFIG: the MCP servers file; unset means ./mcp.json when it exists (src/tools/mcp/mcp-config.ts). */
  readonly mcpConfig?: string;
  /** BOT_SETTINGS: the settings file (access, limits, channels); unset: bot.settings.json when present. */
  readonly settingsFile?: string;
  readonly approvalTimeoutMs: number;
  /** Signs stored approvals; when unset the key comes from a shared chat secret (Redis) or approvalKeyFile (see approval-key.ts). */
  readonly approvalSecret?: string;
  /** Where the approval key is kept when it is neither set nor derived; never inside the SQLite store's folder. */
  readonly approvalKeyFile: string;
  readonly slack?: {
    readonly botToken: string;
    readonly mode:
      | { readonly kind: "socket"; readonly appToken: string }
      | { readonly kind: "http"; readonly signingSecret: string; readonly port: number };
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
  /** Health, readiness and metrics (and Slack's HTTP mode) listen here in every process but the console. */
  readonly port: number;
  /** Where OpenTelemetry traces go (OTLP/HTTP); unset: no tracing SDK is loaded. */
  readonly otlpEndpoint?: string;
  /** Run records (RUN_RECORD_*, RUN_RETENTION_*). */
  readonly records: {
    readonly maxBytes: number;
    readonly content: "full" | "metadata";
    readonly retentionDays: number;
    readonly retentionMax: number;
  };
  /** MODEL_PRICES: dollars per million tokens, over the default table (src/cost/price-table.ts). */
  readonly prices: Readonly<Record<string, { readonly input: number; readonly cached?: number; readonly output: number }>>;
  /** The run explorer at /admin: ADMIN_TOKEN, and ADMIN_PORT / ADMIN_HOST for a listener of its own; unset: off. */
  readonly admin?: { readonly token: string; readonly port?: number; readonly host: string };
  readonly schedules: ScheduleConfig;
}

export interface ScheduleConfig {
  /** Shortest time between two slots of a recurring schedule (one-shots are exempt). */
  readonly minIntervalMinutes: number;
  /** Schedules not ended (active or paused) per person, and per channel. */
  readonly maxPerUser: number;
  readonly maxPerChannel: number;
  /** A slot missed while the bot was down still runs (late) when it is at most this old; older ones are skipped. */
  readonly catchUpMinutes: number;
  /** The timezone of a schedule whose phrase names none and whose owner's is unknown; unset: such a schedule is refused. */
  readonly defaultTimeZone?: string;
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
  // Split roles hand work to each other through the shared queue, which needs Redis.
  if (result.data.BOT_ROLE !== "all" && !/^rediss?:\/\//.test(result.data.STORE_URL)) {
    throw new ConfigError(
      "BOT_ROLE",
      `expects all unless STORE_URL is redis://… (ingress and worker processes share work through Redis)`,
      result.data.BOT_ROLE,
    );
  }
  return toConfig(result.data);
}

function toConfig(env: Env): Config {
  return {
    model: {
      apiKey: env.OPENAI_API_KEY === DEMO_KEY ? undefined : env.OPENAI_API_KEY,
      demoRequested: env.OPENAI_API_KEY === DEMO_KEY,
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
    role: env.BOT_ROLE,
    memory: {
      historyTurns: env.MEMORY_HISTORY_TURNS,
      historyTokens: env.MEMORY_HISTORY_TOKENS,
      maxFacts: env.MEMORY_MAX_FACTS,
      recallFacts: env.MEMORY_RECALL_FACTS,
      extractFacts: env.MEMORY_EXTRACT_FACTS,
    },
    toolPolicy: env.TOOL_POLICY,
    mcpConfig: env.MCP_CONFIG,
    ...(env.BOT_SETTINGS === undefined ? {} : { settingsFile: env.BOT_SETTINGS }),
    approvalTimeoutMs: env.APPROVAL_TIMEOUT_MS,
    approvalSecret: env.APPROVAL_SECRET,
    approvalKeyFile: keyFileOutsideStore(env.APPROVAL_KEY_FILE, env.STORE_URL),
    slack: slackConfig(env),
    discord: discordConfig(env),
    logLevel: env.LOG_LEVEL,
    port: env.PORT,
    otlpEndpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT,
    schedules: {
      minIntervalMinutes: env.SCHEDULE_MIN_INTERVAL_MINUTES,
      maxPerUser: env.SCHEDULE_MAX_PER_USER,
      maxPerChannel: env.SCHEDULE_MAX_PER_CHANNEL,
      catchUpMinutes: env.SCHEDULE_CATCH_UP_MINUTES,
      ...(env.SCHEDULE_DEFAULT_TZ === undefined ? {} : { defaultTimeZone: env.SCHEDULE_DEFAULT_TZ }),
    },
    ...explorerConfig(env),
  };
}

function explorerConfig(env: Env): Pick<Config, "records" | "prices" | "admin"> {
  if (env.ADMIN_PORT !== undefined && env.ADMIN_TOKEN === undefined)
    throw new ConfigError("ADMIN_PORT", "expects ADMIN_TOKEN to be set too (the explorer is off without it)", String(env.ADMIN_PORT));
  return {
    records: {
      maxBytes: env.RUN_RECORD_MAX_BYTES,
      content: env.RUN_RECORD_CONTENT,
      retentionDays: env.RUN_RETENTION_DAYS,
      retentionMax: env.RUN_RETENTION_MAX,
    },
    prices: env.MODEL_PRICES,
    ...(env.ADMIN_TOKEN === undefined
      ? {}
      : { admin: { token: env.ADMIN_TOKEN, host: env.ADMIN_HOST, ...(env.ADMIN_PORT === undefined ? {} : { port: env.ADMIN_PORT }) } }),
  };
}

/**
 * A copy of the store's folder must not carry the key that signs what is in the store. Only
 * an SQLite store has a folder; STORE_URL's own checks happen when the store opens.
 */
function keyFileOutsideStore(keyFile: string, storeUrl: string): string {
  const path = resolve(keyFile);
  if (!storeUrl.startsWith("sqlite://")) return path;
  const storeFolder = dirname(resolve(storeUrl.slice("sqlite://".length)));
  if (path.startsWith(storeFolder + sep)) {
    throw new ConfigError(
      "APPROVAL_KEY_FILE",
      `expects a path outside the store's folder ${storeFolder}, so a copy of the store can't sign approvals`,
      keyFile,
    );
  }
  return path;
}

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

function slackConfig(env: Env): Config["slack"] {
  if (!env.SLACK_BOT_TOKEN) {
    if (env.SLACK_APP_TOKEN || env.SLACK_SIGNING_SECRET) {
      throw new ConfigError(
        "SLACK_BOT_TOKEN",
        "expects the bot token (xoxb-…) when SLACK_APP_TOKEN or SLACK_SIGNING_SECRET is set",
        undefined,
      );
    }
    return undefined;
  }
  const base = { botToken: env.SLACK_BOT_TOKEN, apiUrl: env.SLACK_API_URL, approvers: env.SLACK_APPROVERS };
  if (env.SLACK_APP_TOKEN) return { ...base, mode: { kind: "socket", appToken: env.SLACK_APP_TOKEN } };
  if (env.SLACK_SIGNING_SECRET) return { ...base, mode: { kind: "http", signingSecret: env.SLACK_SIGNING_SECRET, port: env.PORT } };
  throw new ConfigError(
    "SLACK_APP_TOKEN",
    "expects an app-level token (Socket Mode) or SLACK_SIGNING_SECRET (HTTP mode) with SLACK_BOT_TOKEN",
    undefined,
  );
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
