// All configured MCP servers: started together, each failing on its own. `tools()` is what the
// next model call may use (the tools of the servers that are up); it returns the same array
// until something changed, so a registry can keep its schemas until then. `/tools` is read from
// the same map of names, so a name it shows is the tool a call (or a TOOL_POLICY rule) reaches.
import type { Logger } from "../../logger.js";
import type { ToolCatalog } from "../tool-list.js";
import type { Tool } from "../../contracts/types.js";
import type { McpServerConfig } from "./mcp-config.js";
import { createMcpTool } from "./mcp-tool.js";
import { ServerConnection, type ServerConnectionDeps, type ServerState } from "./server-connection.js";
import { listedAsRead, prefixedToolName } from "./tool-names.js";

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
  /** Every known tool, also of servers that are down, and every configured server with its state, for `/tools`. */
  describe(): ToolCatalog;
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

/** One tool as the model sees it: its name (unique among all servers), its server and its wrapper. */
interface MappedTool {
  readonly name: string;
  readonly connection: ServerConnection;
  readonly tool: Tool;
}

export function createMcpManager(configs: readonly McpServerConfig[], options: McpManagerOptions): McpManager {
  let cached: { readonly mapped: readonly MappedTool[]; readonly offered: readonly Tool[] } | undefined;
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
        { mcpServer: config.name, notice: true },
        `MCP server ${config.name} has "approval": "never": its write tools run without asking anyone`,
      );
  }

  /**
   * Names are given in config order, also to the last known tools of a server that is down, so a
   * server's names stay put while another one comes and goes. Each name is reserved as it is
   * given, so two tools of one server that read alike (`a.b`, `a_b`) get two names.
   */
  function map(): readonly MappedTool[] {
    const taken = new Set<string>();
    const mapped: MappedTool[] = [];
    for (const connection of connections) {
      for (const definition of connection.tools) {
        const name = prefixedToolName(connection.server, definition.name, taken);
        let tool: Tool;
        try {
          tool = createMcpTool({
            name,
            definition,
            caller: connection,
            approval: connection.config.approval,
            listedAsRead: listedAsRead(connection.config, definition.name),
            timeoutMs: connection.config.timeoutMs ?? options.defaultTimeoutMs,
          });
        } catch (error) {
          connection.skip(definition, `its input schema is not usable (${error instanceof Error ? error.message : String(error)})`);
          continue;
        }
        taken.add(name);
        mapped.push({ name, connection, tool });
      }
    }
    return mapped;
  }

  function current() {
    if (!cached) {
      const mapped = map();
      cached = { mapped, offered: mapped.filter((entry) => entry.connection.state.kind === "up").map((entry) => entry.tool) };
    }
    return cached;
  }

  const servers = (): readonly McpServerSummary[] =>
    connections.map((connection) => ({ name: connection.server, state: connection.state, tools: connection.tools.length }));

  return {
    async start() {
      await Promise.all(connections.map((connection) => connection.start()));
    },
    tools: () => current().offered,
    describe: () => ({
      tools: current().mapped.map(({ name, connection, tool }) => ({
        name,
        server: connection.server,
        effect: tool.effect,
        ...(tool.approval ? { approval: tool.approval } : {}),
        up: connection.state.kind === "up",
      })),
      servers: servers(),
    }),
    servers,
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      await Promise.all(connections.map((connection) => connection.close()));
    },
  };
}
