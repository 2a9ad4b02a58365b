// The MCP servers the tests run (the reference servers' commands, the test's own stdio server) and
// waiting for a state of the servers (a reconnect, a changed tool list).
import { fileURLToPath } from "node:url";
import type { McpServerConfig, McpTransportConfig } from "../../src/tools/mcp/mcp-config.js";
import type { McpManager } from "../../src/tools/mcp/mcp-manager.js";

const bin = (name: string) => fileURLToPath(new URL(`../../node_modules/.bin/${name}`, import.meta.url));

type StdioTransport = Extract<McpTransportConfig, { kind: "stdio" }>;

export const everythingServer: StdioTransport = { kind: "stdio", command: bin("mcp-server-everything"), args: ["stdio"], env: {} };
export const filesystemServer = (folder: string): StdioTransport => ({
  kind: "stdio",
  command: bin("mcp-server-filesystem"),
  args: [folder],
  env: {},
});
/** test/support/mcp-server-process.ts: tells its pid, sleeps until cancelled. */
export const testStdioServer: StdioTransport = {
  kind: "stdio",
  command: process.execPath,
  args: ["--import", "tsx", fileURLToPath(new URL("./mcp-server-process.ts", import.meta.url))],
  env: {},
};

export function serverConfig(name: string, transport: McpTransportConfig, extra: Partial<McpServerConfig> = {}): McpServerConfig {
  return { name, transport, approval: "writes", tools: { allow: ["*"], deny: [] }, reads: [], ...extra };
}

/** Resolves once `check` holds, looking again after each change of the manager's servers; fails after `timeoutMs`. */
export function whenServers<T>(manager: McpManager, check: () => T | undefined | false, timeoutMs = 10_000): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const look = () => {
      const value = check();
      if (!value) return false;
      stop();
      clearTimeout(timer);
      resolve(value);
      return true;
    };
    const stop = manager.onChange(() => void look());
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`the MCP servers did not reach the expected state within ${timeoutMs} ms: ${JSON.stringify(manager.servers())}`));
    }, timeoutMs);
    look();
  });
}
