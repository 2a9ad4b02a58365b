// All configured MCP servers: started together, each failing on its own. `tools()` is what the
// next model call may use (the tools of the servers that are up); it returns the same array
// until something changed, so a registry can keep its schemas until then. `/tools` is read from
// the same map of names, so a name it shows is the tool a call (or a TOOL_POLICY rule) reaches.
import type { Logger } from "../../logger.js";
import type { ToolCatalog } from "../tool-list.js";
import type { Tool } from "../../contracts/types.js";
import type { McpServerConfig } from "./mcp-config.js";
import { createMcpTool } from "./mcp-tool.js";
import { serviceAuthProvider } from "./auth/service-auth.js";
import { type People, PersonServer } from "./person-server.js";
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
  /** Where `user` servers (and servers found to ask each person to sign in) keep people's connections; before start(). */
  useConnections(people: People): void;
  /** The `user` servers, by name (also those found at their first 401). */
  personServer(name: string): PersonServer | undefined;
}

/** A configured server: one session for the bot, or one per person (a `user` server). */
type ToolServer = ServerConnection | PersonServer;

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
  readonly connection: ToolServer;
  readonly tool: Tool;
}

export function createMcpManager(configs: readonly McpServerConfig[], options: McpManagerOptions): McpManager {
  let cached: { readonly mapped: readonly MappedTool[]; readonly offered: readonly Tool[] } | undefined;
  const listeners = new Set<() => void>();
  let people: People | undefined;
  const changed = () => {
    cached = undefined;
    for (const listener of listeners) listener();
  };
  const personServer = (config: McpServerConfig): PersonServer =>
    new PersonServer(config, {
      logger: options.logger,
      people: () => {
        if (!people)
          throw new Error(
            `the MCP server "${config.name}" signs in each person, and their sign-in needs PUBLIC_URL to come back to (PUBLIC_URL/oauth/callback)`,
          );
        return people;
      },
      onChange: changed,
      ...(options.connect ? { connect: options.connect } : {}),
      ...(options.connectTimeoutMs ? { connectTimeoutMs: options.connectTimeoutMs } : {}),
    });
  /** A server found to ask each person to sign in is served per person from now on, in its place in the list. */
  const becomePersonal = (index: number) => {
    const config = connections[index]!.config;
    const replacement = personServer({ ...config, auth: { type: "user" } });
    connections[index] = replacement;
    void replacement.start().then(changed);
  };
  const isPersonal = (config: McpServerConfig) => config.auth?.type === "user";
  const connections: ToolServer[] = configs.map((config, index) =>
    isPersonal(config)
      ? personServer(config)
      : new ServerConnection(config, {
          logger: options.logger,
          onChange: changed,
          connect: options.connect,
          backoffMs: options.backoffMs,
          connectTimeoutMs: options.connectTimeoutMs,
          heartbeatMs: options.heartbeatMs,
          ...(serviceAuthProvider(config.auth) ? { authProvider: serviceAuthProvider(config.auth) } : {}),
          // Only a server with no auth entry is found out this way; one that says `none` or `service` keeps its 401.
          ...(config.auth === undefined && config.transport.kind === "http" ? { onPersonAuth: () => becomePersonal(index) } : {}),
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
    useConnections(given) {
      people = given;
    },
    personServer(name) {
      const found = connections.find((connection) => connection.server === name);
      return found instanceof PersonServer ? found : undefined;
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
