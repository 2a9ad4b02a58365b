// An SDK-built MCP server on 127.0.0.1 whose tools ask the person (mcp-asking-tools.ts), with the
// MCP manager connected to it as app.ts connects one: what every surface's form test starts from.
import { silentLogger } from "../../src/logger.js";
import { createMcpManager, type McpManager } from "../../src/tools/mcp/mcp-manager.js";
import { askingTools, type AskingLog } from "./mcp-asking-tools.js";
import { startMcpHttpServer } from "./mcp-http-server.js";
import { serverConfig, whenServers } from "./mcp-servers.js";

export interface AskingServer {
  readonly manager: McpManager;
  readonly log: AskingLog;
  readonly url: string;
  close(): Promise<void>;
}

/** The server is named `rooms`: its tools reach the model as `rooms__book_room`, `rooms__book_room_here`, `rooms__sign_in`, `rooms__ask_broken`. */
/** `elicitTimeoutMs`: how long the server waits for an answer before it cancels its question. */
export async function startAskingServer(options: { toolTimeoutMs?: number; elicitTimeoutMs?: number } = {}): Promise<AskingServer> {
  const { setup, log } = askingTools(options.elicitTimeoutMs ? { elicitTimeoutMs: options.elicitTimeoutMs } : {});
  const http = await startMcpHttpServer({ tools: setup });
  const manager = createMcpManager([serverConfig("rooms", { kind: "http", url: http.url, headers: {}, sse: false })], {
    logger: silentLogger,
    defaultTimeoutMs: options.toolTimeoutMs ?? 10_000,
    backoffMs: [100],
    heartbeatMs: 60_000,
  });
  await manager.start();
  await whenServers(manager, () => manager.tools().length > 0);
  return {
    manager,
    log,
    url: http.url,
    async close() {
      await manager.close();
      await http.kill();
    },
  };
}
