// The names of MCP tools: unique also when two tools of one server read alike once made safe
// (`get.page`, `get_page`, `get page`), and `/tools` shows exactly the names the model is offered,
// so a name taken from the listing (in a call, in a TOOL_POLICY rule) reaches the tool it shows.
// The server is the SDK's low-level Server over the SDK's in-memory transport.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { join } from "node:path";
import { afterEach, beforeAll, afterAll, describe, expect, it } from "vitest";
import { call, say, ScriptedModel } from "../../support/model-scripted.js";
import { silentLogger } from "../../../src/logger.js";
import { CLIENT_INFO, type Connection } from "../../../src/tools/mcp/connect.js";
import { createMcpManager, type McpManager } from "../../../src/tools/mcp/mcp-manager.js";
import { serverConfig } from "../../support/mcp-servers.js";
import { temporaryFolder } from "../../support/temporary-folder.js";
import { originFor } from "../../support/service-harness.js";
import { startMcpService } from "../../support/mcp-harness.js";

const CLASHING = [
  { name: "get.page", description: "reads a page", inputSchema: { type: "object" }, annotations: { readOnlyHint: true } },
  { name: "get_page", description: "takes a page away", inputSchema: { type: "object" }, annotations: { destructiveHint: true } },
  { name: "get page", description: "reads a page, spaced", inputSchema: { type: "object" }, annotations: { readOnlyHint: true } },
];

/** Every tool call the server received, by the server's own tool name. */
const called: string[] = [];

async function clashingServer(): Promise<Connection> {
  const server = new Server({ name: "clash", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: CLASHING }) as never);
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    called.push(request.params.name);
    return { content: [{ type: "text", text: `called ${request.params.name}` }] };
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client(CLIENT_INFO, { capabilities: {} });
  await client.connect(clientSide);
  return { client, via: "stdio" };
}

let folder: Awaited<ReturnType<typeof temporaryFolder>>;
const cleanups: Array<() => Promise<void>> = [];
beforeAll(async () => {
  folder = await temporaryFolder();
});
afterEach(async () => {
  called.length = 0;
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(async () => folder.remove());

async function startManager(): Promise<McpManager> {
  const manager = createMcpManager([serverConfig("wiki", { kind: "stdio", command: "unused", args: [], env: {} })], {
    logger: silentLogger,
    defaultTimeoutMs: 5_000,
    connect: clashingServer,
  });
  cleanups.push(() => manager.close());
  await manager.start();
  return manager;
}

describe("MCP tool names", () => {
  it("two tools of one server that read alike get two names, and each name calls its own tool", async () => {
    const manager = await startManager();
    const names = manager.tools().map((tool) => tool.name);
    expect(names).toEqual(["wiki__get_page", "wiki__get_page_2", "wiki__get_page_3"]);
    const context = { signal: new AbortController().signal, runId: "r", origin: originFor() };
    for (const tool of manager.tools()) await tool.execute({}, context);
    expect(called).toEqual(["get.page", "get_page", "get page"]);
  });

  it("/tools shows the names the model is offered, and a TOOL_POLICY rule written against it reaches that tool", async () => {
    const manager = await startManager();
    // The listing says wiki__get_page_2 is the write; a rule written against it keeps exactly that one from running.
    const listed = manager.describe().tools;
    expect(listed.map((tool) => [tool.name, tool.effect])).toEqual([
      ["wiki__get_page", "read"],
      ["wiki__get_page_2", "write"],
      ["wiki__get_page_3", "read"],
    ]);
    const model = new ScriptedModel([call("wiki__get_page_2", {}), call("wiki__get_page_3", {}), say("done")]);
    const { service, close } = await startMcpService({
      model,
      manager,
      storeUrl: `sqlite://${join(folder.path, "names.sqlite")}`,
      env: { TOOL_POLICY: "wiki__get_page_2=deny" },
    });
    cleanups.push(close);
    const outcome = await service.ask({ origin: originFor(), text: "take the page away" }, () => undefined);
    expect(outcome.status).toBe("answered");
    expect(model.requests[1]!.messages.at(-1)?.content).toMatch(/not allowed by this bot's tool policy/);
    expect(called).toEqual(["get page"]);
    const offered = model.requests[0]!.tools.map((tool) => tool.name);
    const shown = service.tools.list("console").tools.map((tool) => tool.name);
    expect(shown.filter((name) => name.startsWith("wiki__"))).toEqual(offered.filter((name) => name.startsWith("wiki__")));
    expect(new Set(shown).size).toBe(shown.length);
  });
});
