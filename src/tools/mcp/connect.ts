// Opens one MCP client session over the server's transport: a child process over stdio, or
// Streamable HTTP with the deprecated SSE transport as the fallback for older servers. A failure
// rejects with the reason in words (command not found, exit code, HTTP status).
import type { ChildProcess } from "node:child_process";
import type { Readable } from "node:stream";
import {
  discoverOAuthProtectedResourceMetadata,
  extractWWWAuthenticateParams,
  type OAuthClientProvider,
} from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { Logger } from "../../logger.js";
import { PersonAuthNeededError } from "../../errors.js";
import { failureReason, type ProcessEnd } from "./connect-failure.js";
import type { McpTransportConfig } from "./mcp-config.js";

export const CLIENT_INFO = { name: "guarded-agent-bot", version: "0.1.0" } as const;

export interface Connection {
  readonly client: Client;
  /** "stdio", "streamable-http" or "sse": what the session runs over, for the start line and /tools. */
  readonly via: "stdio" | "streamable-http" | "sse";
  /** How a stdio server's process ended, once it has. */
  ended?(): ProcessEnd | undefined;
  /** An HTTP server without OAuth settings that answered a request 401 asking each person to sign in. */
  personAuth?(): Promise<boolean>;
}

export interface ConnectOptions {
  readonly logger: Logger;
  /** Bounds the whole handshake, so a server that hangs at start can't hold the bot's start. */
  readonly timeoutMs: number;
  /** OAuth for an HTTP server (the SDK's providers: a service's client credentials, or a person's connection). */
  readonly authProvider?: OAuthClientProvider;
  /** The HTTP client of an HTTP server's session (a person's session watches its answers for step-up). */
  readonly fetch?: typeof fetch;
}

/**
 * The child gets the SDK's safe set (HOME, LOGNAME, PATH, SHELL, TERM, USER) and the entry's own
 * `env`, nothing else: the bot's tokens and keys never reach it.
 */
function stdioEnvironment(entryEnv: Readonly<Record<string, string>>): Record<string, string> {
  return { ...getDefaultEnvironment(), ...entryEnv };
}

/** The server's stderr goes to the bot's log line by line, never into the chat or the terminal. */
function forwardStderr(stream: Readable | null, logger: Logger): void {
  if (!stream) return;
  let pending = "";
  stream.setEncoding("utf8");
  stream.on("data", (chunk: string) => {
    const lines = (pending + chunk).split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) if (line.trim() !== "") logger.info({ stderr: line.slice(0, 2000) }, "MCP server stderr");
  });
  stream.on("end", () => {
    if (pending.trim() !== "") logger.info({ stderr: pending.slice(0, 2000) }, "MCP server stderr");
  });
}

/** The SDK's stdio transport, also keeping how its process ended (the SDK keeps the child to itself). */
class StdioTransport extends StdioClientTransport {
  ended: ProcessEnd | undefined;

  override async start(): Promise<void> {
    await super.start();
    // `_process` is the SDK's own field; without it a reason falls back to "Connection closed".
    const child = (this as unknown as { _process?: ChildProcess })._process;
    // Attached right after "spawn", so no exit can come before it.
    child?.once("exit", (code, signal) => {
      this.ended = { code, signal };
    });
  }
}

/** Servers may ask the person (elicitation, both modes): see elicitation.ts and call-questions.ts. */
export const CLIENT_CAPABILITIES = { elicitation: { form: {}, url: {} } } as const;

function newClient(): Client {
  return new Client(CLIENT_INFO, { capabilities: CLIENT_CAPABILITIES });
}

async function open(transport: Transport, options: ConnectOptions): Promise<Client> {
  const client = newClient();
  try {
    await client.connect(transport, { timeout: options.timeoutMs });
    return client;
  } catch (error) {
    await client.close().catch(() => {});
    throw error;
  }
}

/** 4xx on the Streamable HTTP initialize: the server predates it (the fallback the protocol documents). */
function refusedAsOldServer(error: unknown): boolean {
  return error instanceof StreamableHTTPError && error.code !== undefined && error.code >= 400 && error.code < 500;
}

/** Rejects, with the reason as its message, when the server can't be started or reached, or refuses the handshake. */
export async function connect(config: McpTransportConfig, options: ConnectOptions): Promise<Connection> {
  if (config.kind === "stdio") {
    const transport = new StdioTransport({
      command: config.command,
      args: [...config.args],
      env: stdioEnvironment(config.env),
      cwd: config.cwd,
      stderr: "pipe",
    });
    forwardStderr(transport.stderr as Readable | null, options.logger);
    try {
      return { client: await open(transport, options), via: "stdio", ended: () => transport.ended };
    } catch (error) {
      // Node reports the exit before the streams close, so a server that ended is known here.
      throw new Error(failureReason(error, config, options.timeoutMs, transport.ended), { cause: error });
    }
  }
  try {
    return await connectHttp(config, options);
  } catch (error) {
    if (error instanceof PersonAuthNeededError) throw error;
    throw new Error(failureReason(error, config, options.timeoutMs), { cause: error });
  }
}

/**
 * Notes a 401's challenge, so a server that wants each person to sign in is known as such: its
 * challenge names its protected-resource metadata, or (a Bearer challenge that does not) the
 * metadata is found at the well-known place (RFC 9728, the SDK's discovery).
 */
function challengeWatch(url: string): { readonly fetch: typeof fetch; personAuth(): Promise<boolean> } {
  let challenge: "named" | "bearer" | undefined;
  return {
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      if (response.status === 401 && challenge !== "named") {
        if (extractWWWAuthenticateParams(response).resourceMetadataUrl) challenge = "named";
        else if (/^\s*bearer\b/i.test(response.headers.get("www-authenticate") ?? "")) challenge = "bearer";
      }
      return response;
    },
    async personAuth() {
      if (challenge !== "bearer") return challenge === "named";
      return discoverOAuthProtectedResourceMetadata(url).then(
        (metadata) => metadata.authorization_servers !== undefined && metadata.authorization_servers.length > 0,
        () => false,
      );
    },
  };
}

async function connectHttp(config: Extract<McpTransportConfig, { kind: "http" }>, options: ConnectOptions): Promise<Connection> {
  const url = new URL(config.url);
  const requestInit: RequestInit = { headers: { ...config.headers } };
  const { authProvider } = options;
  if (config.sse) return { client: await open(new SSEClientTransport(url, { requestInit, authProvider }), options), via: "sse" };
  // Without OAuth settings a 401 is looked at: one that names the server's resource metadata asks for each person's sign-in.
  const watch = authProvider ? undefined : challengeWatch(config.url);
  const fetching = watch?.fetch ?? options.fetch;
  try {
    const transport = new StreamableHTTPClientTransport(url, { requestInit, authProvider, ...(fetching ? { fetch: fetching } : {}) });
    return { client: await open(transport, options), via: "streamable-http", ...(watch ? { personAuth: () => watch.personAuth() } : {}) };
  } catch (error) {
    if (await watch?.personAuth()) throw new PersonAuthNeededError(config.url);
    if (!refusedAsOldServer(error) || authProvider) throw error;
    options.logger.info(
      { status: (error as StreamableHTTPError).code },
      "the MCP server refused Streamable HTTP; trying the older SSE transport",
    );
    return { client: await open(new SSEClientTransport(url, { requestInit }), options), via: "sse" };
  }
}
