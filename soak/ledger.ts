// The ledger: an MCP server over HTTP (the SDK's, in the soak's own process, so it outlives every
// bot) with the policy-allowed write `record` (each call counted under its idempotency key) and
// the slow read `lookup`. The bots reach it as `ledger__record` / `ledger__lookup`, with
// "approval": "never" in their MCP file: the write runs on the model's word alone.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { z } from "zod";
import { startMcpHttpServer } from "../test/support/mcp-http-server.js";

export interface Ledger {
  /** The MCP servers file the bots get as MCP_CONFIG. */
  readonly configFile: string;
  /** How many times each key was recorded. */
  readonly writes: ReadonlyMap<string, number>;
  close(): Promise<void>;
}

export async function startLedger(folder: string): Promise<Ledger> {
  const writes = new Map<string, number>();
  const server = await startMcpHttpServer({
    tools: (mcp) => {
      mcp.registerTool(
        "record",
        {
          description: "Records an entry in the ledger (a write).",
          inputSchema: { key: z.string() },
          annotations: { destructiveHint: true },
        },
        async ({ key }) => {
          writes.set(key, (writes.get(key) ?? 0) + 1);
          return { content: [{ type: "text", text: `recorded ${key}` }] };
        },
      );
      mcp.registerTool(
        "lookup",
        {
          description: "Looks something up in the ledger (slow).",
          inputSchema: { ms: z.number().int().min(0).max(60_000) },
          annotations: { readOnlyHint: true },
        },
        async ({ ms }, extra) => {
          await sleep(ms, undefined, { signal: extra.signal }).catch(() => undefined);
          return { content: [{ type: "text", text: `looked up for ${ms} ms` }] };
        },
      );
    },
  });
  const configFile = join(folder, "mcp.json");
  writeFileSync(configFile, JSON.stringify({ mcpServers: { ledger: { type: "http", url: server.url, approval: "never" } } }, null, 2));
  return { configFile, writes, close: () => server.kill() };
}
