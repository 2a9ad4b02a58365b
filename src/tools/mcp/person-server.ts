// A `user` MCP server: each person calls it through a session of their own, signed in with their
// own connection (auth/person-connections.ts). Until someone has connected, its tools are not
// known, so it offers one tool, `connect`, that asks the person to connect; once a session
// lists the tools, they are kept in the store and offered to everyone (each call still runs as
// the person asking, who is asked to connect first when they have not). The server's questions
// during a call go to that call's run (call-questions.ts), as on a shared connection.
import { UnauthorizedError, extractWWWAuthenticateParams } from "@modelcontextprotocol/sdk/client/auth.js";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { type CallToolResult, type Tool as McpToolDefinition, ToolSchema } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { TaskOrigin } from "../../contracts/types.js";
import type { Logger } from "../../logger.js";
import type { KeyValueStore } from "../../memory/types.js";
import { ownerKey, type ConnectionOwner } from "./auth/connection-store.js";
import type { PersonAuthProvider } from "./auth/person-auth-provider.js";
import type { PersonConnections, PersonServer as PersonServerInfo } from "./auth/person-connections.js";
import { connect as defaultConnect, type Connection, type ConnectOptions } from "./connect.js";
import type { McpServerConfig, McpTransportConfig } from "./mcp-config.js";
import { CallQuestions } from "./call-questions.js";
import { type CallOptions, protocolOptions, type ToolCaller } from "./mcp-tool.js";
import type { ServerState } from "./server-connection.js";
import { toolFilter } from "./tool-names.js";

/** What a `user` server needs of the process: people's connections, and the store that keeps its tool list. */
export interface People {
  readonly connections: PersonConnections;
  readonly store: KeyValueStore;
}

export interface PersonServerDeps {
  readonly logger: Logger;
  /** Set up once the store is open, before start(); throws until then. */
  people(): People;
  /** Called after the tool list changed. Must not throw. */
  readonly onChange: () => void;
  readonly connect?: (config: McpTransportConfig, options: ConnectOptions) => Promise<Connection>;
  readonly connectTimeoutMs?: number;
  /** A person's session is closed after this long unused. */
  readonly idleMs?: number;
}

/** The one tool of a server nobody has connected yet. */
export const CONNECT_TOOL = "connect";
const DEFAULT_IDLE_MS = 5 * 60_000;
const MAX_PAGES = 100;
const LooseToolsPage = z.looseObject({ tools: z.array(z.unknown()), nextCursor: z.string().optional() });
const StoredTools = z.array(z.unknown());

export function ownerOf(origin: TaskOrigin): ConnectionOwner {
  return {
    surface: origin.surface,
    ...(origin.scope?.workspace ? { workspace: origin.scope.workspace } : {}),
    person: origin.requester.id,
  };
}

/** A 403 `insufficient_scope` tells the provider which scope the server wants, before the SDK asks it to sign in again. */
function stepUpWatch(provider: PersonAuthProvider): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    if (response.status === 403) {
      const { error, scope } = extractWWWAuthenticateParams(response);
      if (error === "insufficient_scope" && scope) provider.stepUp(scope);
    }
    return response;
  };
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));
/** The SDK could not sign the person in: on a call, or opening the session (connect.ts words the latter, keeping it as the cause). */
const unauthorized = (error: unknown) =>
  error instanceof UnauthorizedError || (error instanceof Error && error.cause instanceof UnauthorizedError);

export class PersonServer implements ToolCaller {
  readonly server: string;
  readonly info: PersonServerInfo;
  private readonly logger: Logger;
  private readonly wanted: (name: string) => boolean;
  private readonly sessions = new Map<
    string,
    { client: Promise<Client>; provider: PersonAuthProvider; questions: CallQuestions; timer?: NodeJS.Timeout }
  >();
  private readonly skipped = new Set<string>();
  private toolsValue: readonly McpToolDefinition[] = [];
  private known = false;
  private closed = false;

  constructor(
    readonly config: McpServerConfig,
    private readonly deps: PersonServerDeps,
  ) {
    if (config.transport.kind !== "http") throw new Error(`the MCP server "${config.name}" is not an HTTP server`);
    this.server = config.name;
    this.info = { name: config.name, url: config.transport.url, auth: config.auth };
    this.logger = deps.logger.child({ mcpServer: config.name });
    this.wanted = toolFilter(config.tools.allow, config.tools.deny);
    this.toolsValue = [this.connectTool()];
  }

  /** Up: its tools (or its `connect` tool) are offered; each person's session opens on their first call. */
  get state(): ServerState {
    return { kind: "up", via: "streamable-http" };
  }

  get tools(): readonly McpToolDefinition[] {
    return this.toolsValue;
  }

  /** Reads the tool list a session kept; never rejects. */
  async start(): Promise<void> {
    const stored = StoredTools.safeParse(
      await Promise.resolve()
        .then(() => this.deps.people().store.get(this.toolsKey()))
        .catch(() => undefined),
    );
    if (stored.success && stored.data.length > 0) this.useTools(stored.data);
  }

  async close(): Promise<void> {
    this.closed = true;
    const open = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(
      open.map(async (session) => {
        clearTimeout(session.timer);
        await (await session.client.catch(() => undefined))?.close().catch(() => {});
      }),
    );
  }

  /** The server to connect before a call from `origin` can run: none when the person's connection is ready. */
  async needsConnection(origin: TaskOrigin): Promise<string | undefined> {
    const readiness = await this.deps.people().connections.readiness(ownerOf(origin), this.info);
    if (readiness === "ready") return undefined;
    this.drop(ownerKey(ownerOf(origin)));
    return this.server;
  }

  async callTool(name: string, args: Record<string, unknown>, options: CallOptions): Promise<CallToolResult> {
    if (!options.origin) throw new Error(`the MCP server "${this.server}" acts as a person, and this call has none`);
    const owner = ownerOf(options.origin);
    const { client: opening, provider, questions } = this.session(owner);
    try {
      // Opening the session meets a 401 too: a token the server ended early, and a refresh it refuses.
      const client = await opening;
      if (name === CONNECT_TOOL && !this.known) return { content: [{ type: "text", text: `Connected to ${this.server}.` }] };
      if (name === CONNECT_TOOL) return { content: [{ type: "text", text: `Connected to ${this.server}; its tools can be used now.` }] };
      return await questions.during(
        options.ask,
        options.runId,
        async () => (await client.callTool({ name, arguments: args }, undefined, protocolOptions(options))) as CallToolResult,
      );
    } catch (error) {
      if (unauthorized(error)) throw await this.signInAgain(owner, name, provider.steppedUp);
      throw error;
    }
  }

  /** Logs a tool that can't be offered, once per tool name. */
  skip(raw: unknown, reason: string): void {
    const name = typeof raw === "object" && raw !== null && "name" in raw ? String((raw as { name: unknown }).name) : "(unnamed)";
    if (this.skipped.has(name)) return;
    this.skipped.add(name);
    this.logger.warn({ tool: name }, `MCP server ${this.server}: skipping tool ${name}: ${reason}`);
  }

  private toolsKey(): string {
    return `mcp:tools:${encodeURIComponent(this.server)}`;
  }

  private connectTool(): McpToolDefinition {
    return {
      name: CONNECT_TOOL,
      description: `Connects ${this.server} (an MCP server that acts as the person asking) so its tools can be used. Call it when the person wants something ${this.server} does; they are asked to sign in if they have not.`,
      inputSchema: { type: "object", properties: {} },
      annotations: { readOnlyHint: true },
    };
  }

  private useTools(raw: readonly unknown[]): void {
    const found: McpToolDefinition[] = [];
    for (const entry of raw) {
      const parsed = ToolSchema.safeParse(entry);
      if (parsed.success) {
        if (this.wanted(parsed.data.name)) found.push(parsed.data);
      } else this.skip(entry, parsed.error.issues[0]?.message ?? "not a valid tool");
    }
    this.known = true;
    this.toolsValue = found;
    this.deps.onChange();
  }

  /**
   * The server wants the person to sign in again: for more access (a step-up, whose scope the next
   * Connect link asks for), or because their connection can't be renewed. The connection is
   * forgotten, so the call taken again pauses for a new one.
   */
  private async signInAgain(owner: ConnectionOwner, tool: string, scope: string | undefined): Promise<Error> {
    this.drop(ownerKey(owner));
    const { store } = this.deps.people().connections;
    await store.saveWantedScope(owner, this.server, scope);
    await store.forget(owner, this.server);
    return new Error(
      scope
        ? `${this.server} asks for more access (${scope}) for ${tool}: call it again, and the person is asked to connect ${this.server} again with it`
        : `${this.server} no longer accepts the person's connection: call ${tool} again, and they are asked to connect it again`,
    );
  }

  /** The person's open session, opened (and its tools listed, the first time) when there is none. Its calls' questions go to their runs. */
  private session(owner: ConnectionOwner): {
    readonly client: Promise<Client>;
    readonly provider: PersonAuthProvider;
    readonly questions: CallQuestions;
  } {
    const key = ownerKey(owner);
    let session = this.sessions.get(key);
    if (!session) {
      const provider = this.deps.people().connections.sessionProvider(owner, this.info);
      const questions = new CallQuestions(this.server, this.logger);
      const client = this.open(provider, questions);
      session = { client, provider, questions };
      this.sessions.set(key, session);
      client.catch(() => this.sessions.get(key)?.client === client && this.sessions.delete(key));
    }
    clearTimeout(session.timer);
    session.timer = setTimeout(() => this.drop(key), this.deps.idleMs ?? DEFAULT_IDLE_MS);
    session.timer.unref();
    return session;
  }

  private async open(provider: PersonAuthProvider, questions: CallQuestions): Promise<Client> {
    const connection = await (this.deps.connect ?? defaultConnect)(this.config.transport, {
      logger: this.logger,
      timeoutMs: this.deps.connectTimeoutMs ?? 15_000,
      authProvider: provider,
      fetch: stepUpWatch(provider),
    });
    if (this.closed) {
      await connection.client.close().catch(() => {});
      throw new Error(`the MCP server "${this.server}" is closing`);
    }
    questions.answerOn(connection.client);
    if (!this.known)
      await this.listTools(connection.client).catch((error: unknown) =>
        this.logger.warn({ err: message(error) }, "could not list the tools"),
      );
    return connection.client;
  }

  private drop(key: string): void {
    const session = this.sessions.get(key);
    if (!session) return;
    this.sessions.delete(key);
    clearTimeout(session.timer);
    void session.client.then((client) => client.close()).catch(() => {});
  }

  /** Every page, kept in the store so the next start offers them before anyone connects again. */
  private async listTools(client: Client): Promise<void> {
    const raw: unknown[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const result = await client.request({ method: "tools/list", params: cursor === undefined ? {} : { cursor } }, LooseToolsPage);
      raw.push(...result.tools);
      cursor = result.nextCursor;
      if (cursor === undefined) break;
    }
    await this.deps
      .people()
      .store.set(this.toolsKey(), raw)
      .catch(() => undefined);
    this.useTools(raw);
  }
}
