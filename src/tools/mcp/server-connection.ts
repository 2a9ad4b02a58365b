// One configured MCP server over its lifetime: connect, list its tools (every page), follow
// `notifications/tools/list_changed`, and when it fails to start or drops, log it and try again
// with backoff while the other servers go on. Its tools are offered only while it is up; its
// state says why it is not (failed: never came up; down: was up and was lost).
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  ErrorCode,
  McpError,
  ToolListChangedNotificationSchema,
  ToolSchema,
  type CallToolResult,
  type Tool as McpToolDefinition,
} from "@modelcontextprotocol/sdk/types.js";
import { PersonAuthNeededError } from "../../errors.js";
import type { Logger } from "../../logger.js";
import { z } from "zod";
import { connect as defaultConnect, type Connection, type ConnectOptions } from "./connect.js";
import { endText, failureReason } from "./connect-failure.js";
import type { McpServerConfig, McpTransportConfig } from "./mcp-config.js";
import { protocolOptions, type CallOptions, type ToolCaller } from "./mcp-tool.js";
import { toolFilter } from "./tool-names.js";
import { CallQuestions } from "./call-questions.js";

export type ServerState =
  | { readonly kind: "starting" }
  | { readonly kind: "up"; readonly via: Connection["via"] }
  /** Not up since the bot started: it failed to start, or never connected. Retried with backoff. */
  | { readonly kind: "failed"; readonly reason: string }
  /** Was up, and the connection was lost. Retried with backoff. */
  | { readonly kind: "down"; readonly reason: string };

export interface ServerConnectionDeps {
  readonly logger: Logger;
  /** Called after the state or the tool list changed. Must not throw. */
  readonly onChange: () => void;
  readonly connect?: (config: McpTransportConfig, options: ConnectOptions) => Promise<Connection>;
  /** Delays between attempts; the last one repeats. A successful connection starts over. */
  readonly backoffMs?: readonly number[];
  readonly connectTimeoutMs?: number;
  /** How often an HTTP server is pinged: its connection has no end that tells us it died. */
  readonly heartbeatMs?: number;
  /** The server asks each person to sign in (a 401 naming its resource metadata): this connection ends, a person's server takes over. */
  readonly onPersonAuth?: () => void;
  /** OAuth for the whole server (a `service` server's client credentials). */
  readonly authProvider?: ConnectOptions["authProvider"];
}

const DEFAULT_BACKOFF_MS = [250, 500, 1_000, 2_000, 4_000, 8_000, 15_000, 30_000];
const DEFAULT_CONNECT_TIMEOUT_MS = 15_000;
const DEFAULT_HEARTBEAT_MS = 5_000;
/** A busy server gets this long to answer a ping before it counts as gone. */
const PING_TIMEOUT_MS = 10_000;
const MAX_PAGES = 100;

/** tools/list with each tool left unchecked, so one broken tool costs only itself, not the server. */
const LooseToolsPage = z.looseObject({ tools: z.array(z.unknown()), nextCursor: z.string().optional() });

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

export class ServerConnection implements ToolCaller {
  readonly server: string;
  private current: { client: Client; via: Connection["via"]; ended?: Connection["ended"] } | undefined;
  private stateValue: ServerState = { kind: "starting" };
  private toolsValue: readonly McpToolDefinition[] = [];
  private attempt = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private closed = false;
  private wasUp = false;
  private refreshing: Promise<void> = Promise.resolve();
  private readonly logger: Logger;
  private readonly wanted: (name: string) => boolean;
  private readonly skipped = new Set<string>();
  private readonly questions: CallQuestions;

  constructor(
    readonly config: McpServerConfig,
    private readonly deps: ServerConnectionDeps,
  ) {
    this.server = config.name;
    this.logger = deps.logger.child({ mcpServer: config.name });
    this.wanted = toolFilter(config.tools.allow, config.tools.deny);
    this.questions = new CallQuestions(config.name, this.logger);
  }

  get state(): ServerState {
    return this.stateValue;
  }

  /** The server's tools after its allow/deny lists: the current ones while up, the last known ones while down. */
  get tools(): readonly McpToolDefinition[] {
    return this.toolsValue;
  }

  /** Resolves after the first attempt, whatever its outcome; later attempts run in the background. */
  start(): Promise<void> {
    return this.tryConnect();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    clearInterval(this.heartbeat);
    const open = this.current;
    this.current = undefined;
    await open?.client.close().catch(() => {});
  }

  async callTool(name: string, args: Record<string, unknown>, options: CallOptions): Promise<CallToolResult> {
    const open = this.current;
    if (!open) {
      const state = this.stateValue;
      const reason = state.kind === "down" || state.kind === "failed" ? state.reason : "it is still starting";
      throw new Error(`the MCP server "${this.server}" is not connected (${reason}); its tools are unavailable until it is back`);
    }
    try {
      return await this.questions.during(
        options.ask,
        options.runId,
        async () => (await open.client.callTool({ name, arguments: args }, undefined, protocolOptions(options))) as CallToolResult,
      );
    } catch (error) {
      if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed) {
        throw new Error(
          `the MCP server "${this.server}" closed the connection during the call (it may have crashed), so ${name} did not finish`,
        );
      }
      // The server's own refusals (McpError) and cancellations pass as they are; anything else is the way to the server failing.
      if (error instanceof McpError || options.signal.aborted) throw error;
      throw new Error(
        `the MCP server "${this.server}" could not be reached during the call (${message(error)}), so ${name} did not finish`,
      );
    }
  }

  private setState(state: ServerState): void {
    this.stateValue = state;
    this.deps.onChange();
  }

  private async tryConnect(): Promise<void> {
    if (this.closed) return;
    let connection: Connection;
    try {
      connection = await (this.deps.connect ?? defaultConnect)(this.config.transport, {
        logger: this.logger,
        timeoutMs: this.deps.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
        ...(this.deps.authProvider ? { authProvider: this.deps.authProvider } : {}),
      });
    } catch (error) {
      if (error instanceof PersonAuthNeededError && this.deps.onPersonAuth) return this.becomePersonal();
      this.failed(message(error));
      return;
    }
    if (this.closed) {
      await connection.client.close().catch(() => {});
      return;
    }
    const { client, via } = connection;
    this.current = { client, via, ended: connection.ended };
    client.onclose = () => this.dropped(client);
    this.questions.answerOn(client);
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      this.refreshing = this.refreshing.then(() => this.refresh(client));
    });
    try {
      this.toolsValue = await this.listTools(client);
    } catch (error) {
      this.current = undefined;
      await client.close().catch(() => {});
      // A server that takes the handshake without a token, then asks each person to sign in for its tools.
      if (this.deps.onPersonAuth && (await connection.personAuth?.())) return this.becomePersonal();
      this.failed(`could not list its tools: ${message(error)}`);
      return;
    }
    this.attempt = 0;
    this.wasUp = true;
    if (via !== "stdio") this.watch(client);
    this.logger.info({ via, tools: this.toolsValue.length }, "MCP server connected");
    this.setState({ kind: "up", via });
  }

  /** This connection ends; a person's server takes its place (see McpManager). */
  private becomePersonal(): void {
    this.closed = true;
    this.logger.info(`MCP server ${this.server} asks each person to sign in: people connect it from the chat`);
    this.deps.onPersonAuth?.();
  }

  private failed(reason: string): void {
    if (this.closed) return;
    const delay = this.nextDelay();
    // The first failure in a row is worth a warning; the retries after it only at debug, so a dead server doesn't flood the log.
    if (this.attempt === 1) this.logger.warn({ retryInMs: delay }, `MCP server ${this.server}: ${reason}; retrying with backoff`);
    else this.logger.debug({ retryInMs: delay }, `MCP server ${this.server}: ${reason}`);
    this.setState({ kind: this.wasUp ? "down" : "failed", reason });
    this.retryTimer = setTimeout(() => void this.tryConnect(), delay);
    this.retryTimer.unref();
  }

  private dropped(client: Client, why?: string): void {
    if (this.closed || this.current?.client !== client) return;
    const end = this.current.ended?.();
    const reason = why ?? (end ? endText(end) : "the connection was lost");
    this.current = undefined;
    clearInterval(this.heartbeat);
    void client.close().catch(() => {});
    this.failed(reason);
  }

  /** A ping that fails counts as a lost connection, so a dead HTTP server's tools go away and it is retried. */
  private watch(client: Client): void {
    const every = this.deps.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
    let inFlight = false;
    clearInterval(this.heartbeat);
    const timeout = Math.max(every, PING_TIMEOUT_MS);
    this.heartbeat = setInterval(() => {
      if (inFlight) return;
      inFlight = true;
      client
        .ping({ timeout })
        .catch((error: unknown) => this.dropped(client, `it stopped answering (${failureReason(error, this.config.transport, timeout)})`))
        .finally(() => {
          inFlight = false;
        });
    }, every);
    this.heartbeat.unref();
  }

  private nextDelay(): number {
    const backoff = this.deps.backoffMs ?? DEFAULT_BACKOFF_MS;
    const delay = backoff[Math.min(this.attempt, backoff.length - 1)] ?? 1_000;
    this.attempt += 1;
    return delay;
  }

  private async refresh(client: Client): Promise<void> {
    if (this.current?.client !== client) return;
    try {
      const tools = await this.listTools(client);
      if (this.current?.client !== client) return;
      this.toolsValue = tools;
      this.logger.info({ tools: tools.length }, "MCP server's tool list changed");
      this.deps.onChange();
    } catch (error) {
      this.logger.warn(
        { err: message(error) },
        "could not re-list the MCP server's tools after it announced a change; keeping the old list",
      );
    }
  }

  /** Every page; a tool that is not a valid MCP tool is skipped with one log line. */
  private async listTools(client: Client): Promise<McpToolDefinition[]> {
    const found: McpToolDefinition[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const result = await client.request({ method: "tools/list", params: cursor === undefined ? {} : { cursor } }, LooseToolsPage);
      for (const raw of result.tools) {
        const parsed = ToolSchema.safeParse(raw);
        if (parsed.success) {
          if (this.wanted(parsed.data.name)) found.push(parsed.data);
        } else this.skip(raw, parsed.error.issues[0]?.message ?? "not a valid tool");
      }
      cursor = result.nextCursor;
      if (cursor === undefined) break;
    }
    return found;
  }

  /** Logs a tool that can't be offered, once per server and tool name. */
  skip(raw: unknown, reason: string): void {
    const name = typeof raw === "object" && raw !== null && "name" in raw ? String((raw as { name: unknown }).name) : "(unnamed)";
    if (this.skipped.has(name)) return;
    this.skipped.add(name);
    this.logger.warn({ tool: name }, `MCP server ${this.server}: skipping tool ${name}: ${reason}`);
  }
}
