// The MCP servers file (MCP_CONFIG, default ./mcp.json when it exists), in the format other MCP
// clients share. Checked once at start: a bad file stops the process with one line naming the
// server and the field, like a bad environment variable.
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { z } from "zod";
import { McpConfigError } from "../../errors.js";
import { AuthEntry, checkAuth, type McpAuth } from "./auth/auth-config.js";

export type ApprovalMode = "writes" | "always" | "never";

export type McpTransportConfig =
  | {
      readonly kind: "stdio";
      readonly command: string;
      readonly args: readonly string[];
      readonly env: Readonly<Record<string, string>>;
      readonly cwd?: string;
    }
  /** `sse` is set by `"type": "sse"`: an old server that speaks only the deprecated SSE transport. */
  | { readonly kind: "http"; readonly url: string; readonly headers: Readonly<Record<string, string>>; readonly sse: boolean };

export interface McpServerConfig {
  readonly name: string;
  readonly transport: McpTransportConfig;
  readonly approval: ApprovalMode;
  readonly tools: { readonly allow: readonly string[]; readonly deny: readonly string[] };
  /** Tools (globs over the server's names) that only read though the server does not mark them read-only. */
  readonly reads: readonly string[];
  /** Per call; falls back to AGENT_TOOL_TIMEOUT_MS. */
  readonly timeoutMs?: number;
  /** An HTTP server's OAuth (auth-config.ts); absent: discovered (a 401 naming resource metadata makes it `user`). */
  readonly auth?: McpAuth;
}

const DEFAULT_MCP_CONFIG_FILE = "mcp.json";

const stringMap = z.record(z.string(), z.string({ error: "expects a string" }));

const common = {
  approval: z.enum(["writes", "always", "never"], { error: 'expects "writes", "always" or "never"' }).default("writes"),
  tools: z
    .strictObject({
      allow: z.array(z.string().min(1), { error: "expects a list of tool names or globs" }).optional(),
      deny: z.array(z.string().min(1), { error: "expects a list of tool names or globs" }).optional(),
    })
    .optional(),
  reads: z.array(z.string().min(1), { error: "expects a list of tool names or globs" }).optional(),
  timeoutMs: z
    .number({ error: "expects a number of milliseconds" })
    .int("expects a whole number")
    .positive("expects a number above 0")
    .optional(),
  disabled: z.boolean({ error: "expects true or false" }).optional(),
};

const StdioEntry = z.strictObject({
  type: z.literal("stdio", { error: 'expects "stdio" with "command"' }).optional(),
  command: z.string({ error: "expects the program to run" }).min(1, "expects the program to run"),
  args: z.array(z.string(), { error: "expects a list of strings" }).default([]),
  env: stringMap.default({}),
  cwd: z.string().min(1).optional(),
  ...common,
});

const HttpEntry = z.strictObject({
  type: z.enum(["http", "streamable-http", "streamableHttp", "sse"], { error: 'expects "http" or "sse" with "url"' }).optional(),
  url: z.url({ protocol: /^https?$/, error: "expects an http(s) URL" }),
  headers: stringMap.default({}),
  auth: AuthEntry.optional(),
  ...common,
});

const FileShape = z.strictObject({
  mcpServers: z.record(z.string().min(1, "expects a non-empty server name"), z.unknown(), {
    error: "expects an object of servers by name",
  }),
});

function fail(file: string, detail: string): never {
  throw new McpConfigError(file, detail);
}

function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === "unrecognized_keys") {
    const within = issue.path.map((part) => `${String(part)}.`).join("");
    return `unknown field ${issue.keys.map((key) => `"${within}${key}"`).join(", ")}`;
  }
  const field = issue.path.map(String).join(".");
  return field ? `field "${field}": ${issue.message}` : issue.message;
}

const VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** `${VAR}` from the bot's environment; an unset variable is an error, never an empty string. */
function expand(value: string, env: NodeJS.ProcessEnv, where: () => string): string {
  return value.replace(VARIABLE, (_match, name: string) => {
    const found = env[name];
    if (found === undefined) throw new Error(`${where()} uses \${${name}}, which is not set in the environment`);
    return found;
  });
}

function expandMap(map: Readonly<Record<string, string>>, env: NodeJS.ProcessEnv, field: string): Record<string, string> {
  return Object.fromEntries(Object.entries(map).map(([key, value]) => [key, expand(value, env, () => `field "${field}.${key}"`)]));
}

/** The secrets of `auth` may come from the environment as `${ENV_NAME}`. */
function expandAuth(auth: McpAuth, env: NodeJS.ProcessEnv): McpAuth {
  const fields = ["clientId", "clientSecret", "privateKey", "scope"] as const;
  const expanded = Object.fromEntries(
    fields.flatMap((name) => (auth[name] === undefined ? [] : [[name, expand(auth[name], env, () => `field "auth.${name}"`)]])),
  );
  return { ...auth, ...expanded };
}

/** The server's config, or undefined for a disabled entry: its shape is checked, its ${VAR}s are not needed. */
function parseServer(name: string, raw: unknown, env: NodeJS.ProcessEnv): McpServerConfig | undefined {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw new Error("expects an object");
  const isStdio = "command" in raw;
  if (!isStdio && !("url" in raw)) throw new Error('expects "command" (a server the bot starts) or "url" (an HTTP server)');
  const parsed = (isStdio ? StdioEntry : HttpEntry).safeParse(raw);
  if (!parsed.success) throw new Error(describeIssue(parsed.error.issues[0]!));
  const entry = parsed.data;
  if (entry.disabled) return undefined;
  const shared = {
    name,
    approval: entry.approval,
    tools: { allow: entry.tools?.allow ?? ["*"], deny: entry.tools?.deny ?? [] },
    reads: entry.reads ?? [],
    timeoutMs: entry.timeoutMs,
  };
  if ("command" in entry) {
    const args = entry.args.map((arg, index) => expand(arg, env, () => `field "args.${index}"`));
    return { ...shared, transport: { kind: "stdio", command: entry.command, args, env: expandMap(entry.env, env, "env"), cwd: entry.cwd } };
  }
  const headers = expandMap(entry.headers, env, "headers");
  return {
    ...shared,
    transport: { kind: "http", url: entry.url, headers, sse: entry.type === "sse" },
    ...(entry.auth ? { auth: checkAuth(expandAuth(entry.auth, env), headers) } : {}),
  };
}

/** Parses the file's text; throws McpConfigError with one line naming the file, the server and the field. */
export function parseMcpConfig(text: string, env: NodeJS.ProcessEnv, file: string): McpServerConfig[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    fail(file, `is not valid JSON (${(error as Error).message})`);
  }
  const shape = FileShape.safeParse(json);
  if (!shape.success) fail(file, describeIssue(shape.error.issues[0]!));
  return Object.entries(shape.data.mcpServers).flatMap(([name, raw]) => {
    try {
      return parseServer(name, raw, env) ?? [];
    } catch (error) {
      return fail(file, `server "${name}": ${(error as Error).message}`);
    }
  });
}

/** Reads MCP_CONFIG, or ./mcp.json when it exists; no file and no variable means no servers. */
export function loadMcpConfig(path: string | undefined, env: NodeJS.ProcessEnv, cwd: string = process.cwd()): McpServerConfig[] {
  const file = resolve(cwd, path ?? DEFAULT_MCP_CONFIG_FILE);
  if (!path && !existsSync(file)) return [];
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    return fail(path ?? DEFAULT_MCP_CONFIG_FILE, `cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  return parseMcpConfig(text, env, path ?? DEFAULT_MCP_CONFIG_FILE);
}
