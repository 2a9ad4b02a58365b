// Shared pieces of the MCP tests: the reference servers' commands, a logger whose lines the test
// can read, and waiting for a state of the servers (a reconnect, a changed tool list).
import { Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { createLogger, type Logger } from "../../src/logger.js";
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
/** test/support/mcp-stdio-server.ts: tells its pid, sleeps until cancelled. */
export const testStdioServer: StdioTransport = {
  kind: "stdio",
  command: process.execPath,
  args: ["--import", "tsx", fileURLToPath(new URL("./mcp-stdio-server.ts", import.meta.url))],
  env: {},
};

export function serverConfig(name: string, transport: McpTransportConfig, extra: Partial<McpServerConfig> = {}): McpServerConfig {
  return { name, transport, approval: "writes", tools: { allow: ["*"], deny: [] }, reads: [], ...extra };
}

export interface CapturedLog {
  readonly logger: Logger;
  /** Every log line so far, parsed. */
  lines(): LogLine[];
  /** Resolves with the first line (already written or still to come) that matches. */
  waitFor(match: (line: LogLine) => boolean): Promise<LogLine>;
}

type LogLine = Record<string, unknown> & { msg: string };

export function captureLog(level = "debug"): CapturedLog {
  const lines: LogLine[] = [];
  const waiting = new Set<{ match: (line: LogLine) => boolean; resolve: (line: LogLine) => void }>();
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const text of String(chunk).split("\n").filter(Boolean)) {
        const line = JSON.parse(text) as LogLine;
        lines.push(line);
        for (const waiter of waiting) {
          if (!waiter.match(line)) continue;
          waiting.delete(waiter);
          waiter.resolve(line);
        }
      }
      done();
    },
  });
  return {
    logger: createLogger(level, destination),
    lines: () => [...lines],
    waitFor: (match) => {
      const found = lines.find(match);
      return found ? Promise.resolve(found) : new Promise((resolve) => waiting.add({ match, resolve }));
    },
  };
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
