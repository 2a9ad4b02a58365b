// An MCP server over HTTP built with the SDK, on 127.0.0.1: Streamable HTTP (or only the old SSE
// transport, for the fallback), the headers of every request, tools added at run time (the
// server sends notifications/tools/list_changed), and a kill that drops every connection.
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { z } from "zod";

export interface TestMcpHttpServer {
  readonly url: string;
  /** Headers of every request received, in order. */
  readonly requests: Array<{ method: string; headers: IncomingMessage["headers"] }>;
  /** Adds a read tool to every session; each session's client gets notifications/tools/list_changed. */
  addTool(name: string, answer: string): void;
  /** Drops every connection and stops listening, like a server that died. */
  kill(): Promise<void>;
}

export type ToolSetup = (server: McpServer) => void;

function baseTools(server: McpServer): void {
  server.registerTool(
    "echo",
    { description: "echoes text", inputSchema: { text: z.string() }, annotations: { readOnlyHint: true } },
    async ({ text }) => ({ content: [{ type: "text", text: `echo: ${text}` }] }),
  );
  server.registerTool(
    "delete_page",
    { description: "deletes a page", inputSchema: { id: z.string() }, annotations: { destructiveHint: true } },
    async ({ id }) => ({
      content: [{ type: "text", text: `deleted ${id}` }],
    }),
  );
}

/** `token`: requests without `Authorization: Bearer <token>` are answered 401, as by a server behind a gateway. `tools` registers more tools on every session's server (a test's own, with their own answers). */
/** Answers a request itself (false) or lets it through to the MCP server (true): a resource server's token check. */
export type RequestGuard = (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<boolean>;

export async function startMcpHttpServer(
  options: { sseOnly?: boolean; token?: string; tools?: ToolSetup; protect?: RequestGuard } = {},
): Promise<TestMcpHttpServer> {
  const requests: TestMcpHttpServer["requests"] = [];
  const sessions = new Map<string, Transport & { handleRequest?: unknown }>();
  const servers: McpServer[] = [];
  const extraTools: ToolSetup[] = options.tools ? [options.tools] : [];

  const newServer = () => {
    const server = new McpServer({ name: "test-http", version: "1.0.0" }, { capabilities: { tools: { listChanged: true } } });
    baseTools(server);
    for (const setup of extraTools) setup(server);
    servers.push(server);
    return server;
  };

  async function streamable(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const id = req.headers["mcp-session-id"];
    const known = typeof id === "string" ? (sessions.get(id) as StreamableHTTPServerTransport | undefined) : undefined;
    if (known) return known.handleRequest(req, res);
    if (req.method !== "POST") {
      res.writeHead(400).end();
      return;
    }
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sessionId) => {
        sessions.set(sessionId, transport);
      },
    });
    await newServer().connect(transport);
    await transport.handleRequest(req, res);
  }

  async function legacy(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    if (req.method === "GET" && url.pathname === "/mcp") {
      const transport = new SSEServerTransport("/messages", res);
      sessions.set(transport.sessionId, transport);
      await newServer().connect(transport);
      return;
    }
    if (req.method === "POST" && url.pathname === "/messages") {
      const transport = sessions.get(url.searchParams.get("sessionId") ?? "") as SSEServerTransport | undefined;
      if (transport) return transport.handlePostMessage(req, res);
    }
    // What a server from before Streamable HTTP answers to its POST initialize.
    res.writeHead(405, { allow: "GET" }).end();
  }

  const http = createServer((req, res) => {
    requests.push({ method: req.method ?? "", headers: req.headers });
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (options.token !== undefined && req.headers.authorization !== `Bearer ${options.token}`) {
      res.writeHead(401, { "www-authenticate": "Bearer" }).end();
      return;
    }
    const guard = options.protect ?? (async () => true);
    const handled = guard(req, res, url).then((through) => {
      if (through) return options.sseOnly ? legacy(req, res, url) : streamable(req, res);
    });
    handled.catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/mcp`,
    requests,
    addTool(name, answer) {
      const setup: ToolSetup = (server) => {
        server.registerTool(name, { description: `added at run time: ${name}`, annotations: { readOnlyHint: true } }, async () => ({
          content: [{ type: "text", text: answer }],
        }));
      };
      extraTools.push(setup);
      for (const server of servers) setup(server);
    },
    async kill() {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
      await Promise.all(servers.map((server) => server.close().catch(() => {})));
    },
  };
}
