// Every variable name and value that main accepted before the configuration was derived from its
// schema (the README's table of 2026-12 and the config tests of then) still parses, to the same
// place in Config.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig, type Config } from "../../src/config.js";
import { AREAS } from "../../src/config/areas.js";

const slackHttp = { SLACK_BOT_TOKEN: "xoxb-1", SLACK_SIGNING_SECRET: "s" };
const discord = { DISCORD_TOKEN: "t", DISCORD_APPLICATION_ID: "123" };
const admin = { ADMIN_TOKEN: "0123456789abcdef" };
const redis = { STORE_URL: "redis://127.0.0.1:6379" };

type Row = readonly [env: Record<string, string>, read: (config: Config) => unknown, expected: unknown];

const ROWS: readonly Row[] = [
  [{ OPENAI_API_KEY: "sk-1" }, (c) => c.model.apiKey, "sk-1"],
  [{ OPENAI_API_KEY: "demo" }, (c) => [c.model.apiKey, c.model.demoRequested], [undefined, true]],
  [{ OPENAI_BASE_URL: "http://localhost:11434/v1" }, (c) => c.model.baseUrl, "http://localhost:11434/v1"],
  [{ OPENAI_BASE_URL: "https://openrouter.ai/api/v1" }, (c) => c.model.baseUrl, "https://openrouter.ai/api/v1"],
  [{ OPENAI_MODEL: "llama3.1" }, (c) => c.model.name, "llama3.1"],
  [{ OPENAI_TIMEOUT_MS: "1000" }, (c) => c.model.timeoutMs, 1000],
  [{ OPENAI_MAX_RETRIES: "0" }, (c) => c.model.maxRetries, 0],
  [{ AGENT_MAX_STEPS: "25" }, (c) => c.guards.maxSteps, 25],
  [{ AGENT_MAX_STEPS: " 12 " }, (c) => c.guards.maxSteps, 12],
  [{ AGENT_MAX_CONSECUTIVE_ERRORS: "20" }, (c) => c.guards.maxConsecutiveErrors, 20],
  [{ AGENT_OSCILLATION_WINDOW: "2" }, (c) => c.guards.oscillationWindow, 2],
  [{ AGENT_CONTEXT_TOKENS: "8192" }, (c) => c.guards.contextTokens, 8192],
  [{ AGENT_CONTEXT_TOKENS: "1024" }, (c) => c.guards.contextTokens, 1024],
  [{ AGENT_RESERVED_OUTPUT_TOKENS: "131072" }, (c) => c.guards.reservedOutputTokens, 131_072],
  [{ AGENT_OBSERVATION_TOKENS: "100" }, (c) => c.guards.observationTokens, 100],
  [{ AGENT_RUN_TIMEOUT_MS: "3600000" }, (c) => c.guards.runTimeoutMs, 3_600_000],
  [{ AGENT_TOOL_TIMEOUT_MS: "100" }, (c) => c.guards.toolTimeoutMs, 100],
  [{ STORE_URL: "sqlite://data/other.sqlite" }, (c) => c.storeUrl, "sqlite://data/other.sqlite"],
  [{ STORE_URL: "sqlite:///srv/bot/bot.sqlite" }, (c) => c.storeUrl, "sqlite:///srv/bot/bot.sqlite"],
  [redis, (c) => c.storeUrl, "redis://127.0.0.1:6379"],
  [{ MAX_CONCURRENT_RUNS: "1000" }, (c) => c.maxConcurrentRuns, 1000],
  [{ BOT_ROLE: "all" }, (c) => c.role, "all"],
  [{ ...redis, BOT_ROLE: "ingress" }, (c) => c.role, "ingress"],
  [{ STORE_URL: "rediss://h:6380", BOT_ROLE: "worker" }, (c) => c.role, "worker"],
  [{ MEMORY_HISTORY_TURNS: "100" }, (c) => c.memory.historyTurns, 100],
  [{ MEMORY_HISTORY_TOKENS: "200000" }, (c) => c.memory.historyTokens, 200_000],
  [{ MEMORY_MAX_FACTS: "10000" }, (c) => c.memory.maxFacts, 10_000],
  [{ MEMORY_RECALL_FACTS: "1" }, (c) => c.memory.recallFacts, 1],
  ...["true", "TRUE", "yes", "Yes", "on", " on ", "1"].map(
    (value): Row => [{ MEMORY_EXTRACT_FACTS: value }, (c) => c.memory.extractFacts, true],
  ),
  ...["false", "False", "no", "NO", "off", "0"].map((value): Row => [{ MEMORY_EXTRACT_FACTS: value }, (c) => c.memory.extractFacts, false]),
  [
    { TOOL_POLICY: "post_message=approve,delete_*=deny" },
    (c) => c.toolPolicy,
    [
      { pattern: "post_message", policy: "approve" },
      { pattern: "delete_*", policy: "deny" },
    ],
  ],
  [{ TOOL_POLICY: " jira__*=allow , , read_?=approve" }, (c) => c.toolPolicy.map((rule) => rule.policy), ["allow", "approve"]],
  [{ MCP_CONFIG: "config/mcp.json" }, (c) => c.mcpConfig, "config/mcp.json"],
  [{ MCP_CONFIG: " mcp.json " }, (c) => c.mcpConfig, "mcp.json"],
  [{ BOT_SETTINGS: "bot.settings.yaml" }, (c) => c.settingsFile, "bot.settings.yaml"],
  [{ APPROVAL_TIMEOUT_MS: "86400000" }, (c) => c.approvalTimeoutMs, 86_400_000],
  [{ APPROVAL_SECRET: "0123456789abcdef" }, (c) => c.approvalSecret, "0123456789abcdef"],
  [{ APPROVAL_KEY_FILE: "keys/approval.key" }, (c) => c.approvalKeyFile, join(process.cwd(), "keys/approval.key")],
  [{ PORT: "0" }, (c) => c.port, 0],
  [{ ...slackHttp, PORT: "8080" }, (c) => (c.slack?.mode.kind === "http" ? c.port : undefined), 8080],
  [{ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" }, (c) => c.otlpEndpoint, "http://127.0.0.1:4318"],
  [{ SCHEDULE_MIN_INTERVAL_MINUTES: "1440" }, (c) => c.schedules.minIntervalMinutes, 1440],
  [{ SCHEDULE_MAX_PER_USER: "1" }, (c) => c.schedules.maxPerUser, 1],
  [{ SCHEDULE_MAX_PER_CHANNEL: "10000" }, (c) => c.schedules.maxPerChannel, 10_000],
  [{ SCHEDULE_CATCH_UP_MINUTES: "0" }, (c) => c.schedules.catchUpMinutes, 0],
  [{ SCHEDULE_DEFAULT_TZ: "europe/berlin" }, (c) => c.schedules.defaultTimeZone, "Europe/Berlin"],
  [{ SCHEDULE_DEFAULT_TZ: "utc" }, (c) => c.schedules.defaultTimeZone, "UTC"],
  ...["fatal", "error", "warn", "info", "debug", "trace", "silent"].map((value): Row => [{ LOG_LEVEL: value }, (c) => c.logLevel, value]),
  [{ RUN_RECORD_CONTENT: "metadata" }, (c) => c.records.content, "metadata"],
  [{ RUN_RECORD_MAX_BYTES: "8192" }, (c) => c.records.maxBytes, 8192],
  [{ RUN_RETENTION_DAYS: "3650" }, (c) => c.records.retentionDays, 3650],
  [{ RUN_RETENTION_MAX: "100" }, (c) => c.records.retentionMax, 100],
  [
    { MODEL_PRICES: '{"llama3": {"input": 0.2, "cached": 0.1, "output": 0.4}}' },
    (c) => c.prices,
    { llama3: { input: 0.2, cached: 0.1, output: 0.4 } },
  ],
  [admin, (c) => c.admin, { token: "0123456789abcdef", host: "127.0.0.1" }],
  [{ ...admin, ADMIN_PORT: "9090", ADMIN_HOST: "0.0.0.0" }, (c) => [c.admin?.port, c.admin?.host], [9090, "0.0.0.0"]],
  [{ SLACK_BOT_TOKEN: "xoxb-1", SLACK_APP_TOKEN: "xapp-1" }, (c) => c.slack?.mode, { kind: "socket", appToken: "xapp-1" }],
  [slackHttp, (c) => c.slack?.mode, { kind: "http", signingSecret: "s" }],
  [{ ...slackHttp, SLACK_API_URL: "http://127.0.0.1:9/api/" }, (c) => c.slack?.apiUrl, "http://127.0.0.1:9/api/"],
  [{ ...slackHttp, SLACK_APPROVERS: "U1, U2 ,," }, (c) => c.slack?.approvers, ["U1", "U2"]],
  [discord, (c) => [c.discord?.token, c.discord?.applicationId, c.discord?.approvers, c.discord?.messageContent], ["t", "123", [], false]],
  [{ ...discord, DISCORD_API_URL: "http://127.0.0.1:9/api" }, (c) => c.discord?.apiUrl, "http://127.0.0.1:9/api"],
  [{ ...discord, DISCORD_GUILD_ID: "42" }, (c) => c.discord?.guildId, "42"],
  [{ ...discord, DISCORD_APPROVERS: "1,2" }, (c) => c.discord?.approvers, ["1", "2"]],
  [{ ...discord, DISCORD_APPROVER_ROLE: "77" }, (c) => c.discord?.approverRole, "77"],
  [{ ...discord, DISCORD_MESSAGE_CONTENT: "true" }, (c) => c.discord?.messageContent, true],
];

/** The variables the README listed before the schema came first. */
const NAMES_BEFORE = `ADMIN_HOST ADMIN_PORT ADMIN_TOKEN AGENT_CONTEXT_TOKENS AGENT_MAX_CONSECUTIVE_ERRORS AGENT_MAX_STEPS
  AGENT_OBSERVATION_TOKENS AGENT_OSCILLATION_WINDOW AGENT_RESERVED_OUTPUT_TOKENS AGENT_RUN_TIMEOUT_MS AGENT_TOOL_TIMEOUT_MS
  APPROVAL_KEY_FILE APPROVAL_SECRET APPROVAL_TIMEOUT_MS BOT_ROLE BOT_SETTINGS DISCORD_API_URL DISCORD_APPLICATION_ID
  DISCORD_APPROVERS DISCORD_APPROVER_ROLE DISCORD_GUILD_ID DISCORD_MESSAGE_CONTENT DISCORD_TOKEN LOG_LEVEL MAX_CONCURRENT_RUNS
  MCP_CONFIG MEMORY_EXTRACT_FACTS MEMORY_HISTORY_TOKENS MEMORY_HISTORY_TURNS MEMORY_MAX_FACTS MEMORY_RECALL_FACTS MODEL_PRICES
  OPENAI_API_KEY OPENAI_BASE_URL OPENAI_MAX_RETRIES OPENAI_MODEL OPENAI_TIMEOUT_MS OTEL_EXPORTER_OTLP_ENDPOINT PORT
  RUN_RECORD_CONTENT RUN_RECORD_MAX_BYTES RUN_RETENTION_DAYS RUN_RETENTION_MAX SCHEDULE_CATCH_UP_MINUTES SCHEDULE_DEFAULT_TZ
  SCHEDULE_MAX_PER_CHANNEL SCHEDULE_MAX_PER_USER SCHEDULE_MIN_INTERVAL_MINUTES SLACK_API_URL SLACK_APPROVERS SLACK_APP_TOKEN
  SLACK_BOT_TOKEN SLACK_SIGNING_SECRET STORE_URL TOOL_POLICY`.split(/\s+/);

describe("what main accepted before still parses", () => {
  it.each(ROWS)("%o", (env, read, expected) => {
    expect(read(loadConfig(env))).toEqual(expected);
  });

  it("every variable name it knew is still declared, and has a row here", () => {
    const declared = AREAS.flatMap((area) => Object.values(area.variables).map((variable) => variable.name));
    expect(declared).toEqual(expect.arrayContaining(NAMES_BEFORE));
    const covered = new Set(ROWS.flatMap(([env]) => Object.keys(env)));
    expect(NAMES_BEFORE.filter((name) => !covered.has(name))).toEqual([]);
  });
});
