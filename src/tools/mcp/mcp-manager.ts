// All configured MCP servers: started together, each failing on its own. `tools()` is what the
// next model call may use (the tools of the servers that are up); it returns the same array
// until something changed, so a registry can keep its schemas until then.
import type { Logger } from "pino";
import type { ToolListing } from "../../runs/service.js";
import type { Tool } from "../../agent/types.js";
import type { McpServerConfig } from "./mcp-config.js";
import { createMcpTool, effectOf } from "./mcp-tool.js";
import { ServerConnection, type ServerConnectionDeps, type ServerState } from "./server-connection.js";
import { prefixedToolName } from "./tool-names.js";

export interface McpServerSummary {
  readonly name: string;
  readonly state: ServerState;
  readonly tools: number;
}

export interface McpManager {
  /** Waits for every server's first attempt (each bounded by its connect timeout). Never rejects. */
  start(): Promise<void>;
  /** The tools of the servers that are up, ready for the registry. */
  tools(): readonly Tool[];
  /** Every known tool, also of servers that are down, for `/tools`. */
  describe(): readonly ToolListing[];
  servers(): readonly McpServerSummary[];
  /** Called after any server's state or tool list changed; returns the unsubscribe. Listeners must not throw. */
  onChange(listener: () => void): () => void;
  /** Stops retries and closes every session (stdio servers exit). Never rejects. */
  close(): Promise<void>;
}

export interface McpManagerOptions {
  readonly logger: Logger;
  /** AGENT_TOOL_TIMEOUT_MS: a server's calls use it unless its entry sets `timeoutMs`. */
  readonly defaultTimeoutMs: number;
  readonly connect?: ServerConnectionDeps["connect"];
  readonly backoffMs?: readonly number[];
  readonly connectTimeoutMs?: number;
  readonly heartbeatMs?: number;
}

export function createMcpManager(configs: readonly McpServerConfig[], options: McpManagerOptions): McpManager {
  let cached: readonly Tool[] | undefined;
  const listeners = new Set<() => void>();
  const connections = configs.map(
    (config) =>
      new ServerConnection(config, {
        logger: options.logger,
        onChange: () => {
          cached = undefined;
          for (const listener of listeners) listener();
        },
        connect: options.connect,
        backoffMs: options.backoffMs,
        connectTimeoutMs: options.connectTimeoutMs,
        heartbeatMs: options.heartbeatMs,
      }),
  );
  for (const config of configs) {
    if (config.approval === "never")
      options.logger.warn(
        { mcpServer: config.name },
        `MCP server ${config.name} has "approval": "never": its write tools run without asking anyone`,
      );
  }

  /** Names are given in config order, so a server's names stay put while another one comes and goes. */
  function build(): readonly Tool[] {
    const taken = new Set<string>();
    const tools: Tool[] = [];
    for (const connection of connections) {
      const names = connection.tools.map((definition) => ({
        definition,
        name: prefixedToolName(connection.server, definition.name, taken),
      }));
      for (const { name } of names) taken.add(name);
      if (connection.state.kind !== "up") continue;
      for (const { definition, name } of names) {
        try {
          tools.push(
            createMcpTool({
              name,
              definition,
              caller: connection,
              approval: connection.config.approval,
              timeoutMs: connection.config.timeoutMs ?? options.defaultTimeoutMs,
            }),
          );
        } catch (error) {
          connection.skip(definition, `its input schema is not usable (${error instanceof Error ? error.message : String(error)})`);
        }
      }
    }
    return tools;
  }

  return {
    async start() {
      await Promise.all(connections.map((connection) => connection.start()));
    },
    tools() {
      cached ??= build();
      return cached;
    },
    describe() {
      const taken = new Set<string>();
      return connections.flatMap((connection) =>
        connection.tools.map((definition) => {
          const name = prefixedToolName(connection.server, definition.name, taken);
          taken.add(name);
          return { name, server: connection.server, effect: effectOf(definition), up: connection.state.kind === "up" };
        }),
      );
    },
    servers() {
      return connections.map((connection) => ({ name: connection.server, state: connection.state, tools: connection.tools.length }));
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      await Promise.all(connections.map((connection) => connection.close()));
    },
  };
}
