// Why an MCP server could not be reached, in the words `/tools` and the log show: the command
// that is not there, the exit code of a server that ended before its handshake, the HTTP status
// an HTTP server answered. A URL is shown by its host only: its path or query may hold a token.
import { existsSync } from "node:fs";
import { SseError } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { McpTransportConfig } from "./mcp-config.js";

/** How a server's process ended, as Node reports it. */
export interface ProcessEnd {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

export function endText(end: ProcessEnd): string {
  return end.signal ? `the server process was killed by ${end.signal}` : `the server process exited with code ${end.code}`;
}

function stdioReason(
  error: unknown,
  config: Extract<McpTransportConfig, { kind: "stdio" }>,
  end: ProcessEnd | undefined,
): string | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === "ENOENT") {
    if (config.cwd !== undefined && !existsSync(config.cwd)) return `its folder does not exist: ${config.cwd}`;
    return `command not found: ${config.command}`;
  }
  if (code === "EACCES") return `command not executable: ${config.command}`;
  if (end) return `${endText(end)} before the handshake`;
  return undefined;
}

function httpReason(error: unknown, url: string): string | undefined {
  const host = new URL(url).host;
  if ((error instanceof StreamableHTTPError || error instanceof SseError) && typeof error.code === "number" && error.code >= 100)
    return `HTTP ${error.code} from ${host}`;
  const cause = (error as { cause?: NodeJS.ErrnoException } | undefined)?.cause;
  if (cause?.code === "ECONNREFUSED") return `connection refused by ${host}`;
  if (cause?.code === "ENOTFOUND") return `host not found: ${host}`;
  if (cause) return `could not reach ${host}: ${message(cause)}`;
  return undefined;
}

/** Never throws; falls back to the error's own message. */
export function failureReason(error: unknown, config: McpTransportConfig, timeoutMs: number, end?: ProcessEnd): string {
  const specific = config.kind === "stdio" ? stdioReason(error, config, end) : httpReason(error, config.url);
  if (specific) return specific;
  if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) return `no answer within ${timeoutMs / 1000} s`;
  return message(error);
}
