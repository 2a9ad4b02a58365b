// What app.ts needs of MCP at start: the servers file checked (one line and exit 1 when bad),
// the manager built, the lines `npm start` prints before the servers are tried (a first `npx`
// fetch can take a minute, which must not look like a hang) and once they were.
import type { Logger } from "../../logger.js";
import type { Config } from "../../config.js";
import { McpConfigError } from "../../errors.js";
import { loadMcpConfig, type McpServerConfig } from "./mcp-config.js";
import type { McpManager, McpServerSummary } from "./mcp-manager.js";

type McpSetup =
  | { readonly kind: "ready"; readonly manager?: McpManager; readonly starting: readonly string[] }
  | { readonly kind: "failed"; readonly message: string };

/** No file and no MCP_CONFIG: no manager at all, and the MCP SDK is not even loaded. Nothing is started yet. */
export async function prepareMcp(config: Config, env: NodeJS.ProcessEnv, logger: Logger, cwd?: string): Promise<McpSetup> {
  try {
    const servers = loadMcpConfig(config.mcpConfig, env, cwd);
    if (servers.length === 0) return { kind: "ready", starting: [] };
    const { createMcpManager } = await import("./mcp-manager.js");
    const manager = createMcpManager(servers, { logger, defaultTimeoutMs: config.guards.toolTimeoutMs });
    return { kind: "ready", manager, starting: startingLines(servers) };
  } catch (error) {
    if (error instanceof McpConfigError) return { kind: "failed", message: `Configuration error: ${error.message}` };
    throw error;
  }
}

/** One line per server, before any is tried: what is started, and a warning when npx may fetch a package first. */
export function startingLines(servers: readonly McpServerConfig[]): string[] {
  return servers.map(({ name, transport }) => {
    if (transport.kind === "http") return `MCP server ${name}: connecting to ${transport.url}`;
    const program = [transport.command, ...transport.args.filter((arg) => !arg.startsWith("-"))].slice(0, 2).join(" ");
    const fetches = /(^|[/\\])npx(\.cmd)?$/.test(transport.command);
    return `MCP server ${name}: starting ${program}${fetches ? " (the first start downloads the package with npx: up to a minute)" : ""}`;
  });
}

/** One line per server: up with its transport and tool count, or failed or down with why (it keeps being retried). */
export function serverLines(servers: readonly McpServerSummary[]): string[] {
  return servers.map((server) => {
    const { state } = server;
    const tools = `${server.tools} tool${server.tools === 1 ? "" : "s"}`;
    if (state.kind === "up") return `MCP server ${server.name}: up (${state.via}), ${tools}`;
    if (state.kind === "failed") return `MCP server ${server.name}: failed to start (${state.reason}); retrying in the background`;
    if (state.kind === "down") return `MCP server ${server.name}: down (${state.reason}); retrying in the background`;
    return `MCP server ${server.name}: starting`;
  });
}
