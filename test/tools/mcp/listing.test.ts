// Listing a server's tools: every page, and a tool the protocol or the schema compiler can't
// use is skipped with one log line while the server's other tools stay. The server is the SDK's
// low-level Server (it sends whatever list it is given) over the SDK's in-memory transport.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { CLIENT_INFO, type Connection } from "../../../src/tools/mcp/connect.js";
import { createMcpManager, type McpManager } from "../../../src/tools/mcp/mcp-manager.js";
import { serverConfig } from "../../support/mcp-servers.js";
import { capturingLogger } from "../../support/capturing-logger.js";

const PAGES: Record<string, { tools: unknown[]; nextCursor?: string }> = {
  "": {
    tools: [
      { name: "first", description: "on page one", inputSchema: { type: "object" }, annotations: { readOnlyHint: true } },
      { name: "not_an_object", inputSchema: { type: "string" } },
    ],
    nextCursor: "page-2",
  },
  "page-2": {
    tools: [
      { name: "second", inputSchema: { type: "object", properties: { n: { type: "number" } } }, annotations: { readOnlyHint: true } },
      { name: "broken_ref", inputSchema: { type: "object", properties: { a: { $ref: "#/definitions/missing" } } } },
    ],
  },
};

async function inMemoryServer(): Promise<Connection> {
  const server = new Server({ name: "paged", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async (request) => PAGES[request.params?.cursor ?? ""] as never);
  server.setRequestHandler(CallToolRequestSchema, async (request) => ({
    content: [{ type: "text", text: `called ${request.params.name}` }],
  }));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client(CLIENT_INFO, { capabilities: {} });
  await client.connect(clientSide);
  return { client, via: "stdio" };
}

let manager: McpManager | undefined;
afterEach(async () => {
  await manager?.close();
});

describe("listing tools", () => {
  it("reads every page and skips unusable tools with one log line each", async () => {
    const log = capturingLogger();
    manager = createMcpManager([serverConfig("paged", { kind: "stdio", command: "unused", args: [], env: {} })], {
      logger: log.logger,
      defaultTimeoutMs: 5_000,
      connect: inMemoryServer,
    });
    await manager.start();
    expect(manager.tools().map((tool) => tool.name)).toEqual(["paged__first", "paged__second"]);
    expect(manager.tools().map((tool) => tool.name)).toEqual(["paged__first", "paged__second"]);
    const skipped = log.lines.filter((line) => String(line.msg).includes("skipping tool"));
    expect(skipped.map((line) => line.tool)).toEqual(["not_an_object", "broken_ref"]);
    expect(skipped[1]!.msg).toMatch(/^MCP server paged: skipping tool broken_ref: its input schema is not usable/);
    const second = manager.tools()[1]!;
    await expect(
      second.execute(
        { n: 1 },
        {
          signal: new AbortController().signal,
          runId: "r",
          origin: { surface: "console", conversationKey: "c", requester: { id: "a" }, place: {} },
        },
      ),
    ).resolves.toBe("called second");
  });

  it('warns at start about each server with "approval": "never"', () => {
    const log = capturingLogger();
    manager = createMcpManager([serverConfig("trusted", { kind: "stdio", command: "unused", args: [], env: {} }, { approval: "never" })], {
      logger: log.logger,
      defaultTimeoutMs: 5_000,
      connect: inMemoryServer,
    });
    expect(log.lines.filter((line) => (line.level as number) === 40).map((line) => line.msg)).toEqual([
      'MCP server trusted has "approval": "never": its write tools run without asking anyone',
    ]);
  });
});
