// What calling a tool through an MCP server over stdio costs on top of calling the same tool in
// the process: the reference "everything" server's `echo` (a read) against an in-process tool
// that echoes the same way, both through the real tool registry (argument check, timeout race,
// observation). Median µs per call over 1,000 calls each after a warm-up; the target is at
// most 1 ms more per call over stdio than in the process.
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { TokenCounter } from "../src/tokens/token-counter.js";
import { ToolRegistry } from "../src/agent/tools/tool-registry.js";
import type { Tool, ToolContext } from "../src/contracts/types.js";
import { silentLogger } from "../src/logger.js";
import { createMcpManager } from "../src/tools/mcp/mcp-manager.js";
import { median, percentile, printTable, repeat, timeOnce } from "./support/stats.js";

const CALLS = 1_000;
const WARM_UP_CALLS = 200;
const TARGET_OVERHEAD_US = 1_000;

const context: ToolContext = {
  signal: new AbortController().signal,
  runId: "bench",
  origin: { surface: "console", conversationKey: "console:bench", requester: { id: "bench" }, place: {} },
};

/** In-process twin of the everything server's echo. */
const echo: Tool<{ message: string }> = {
  name: "echo",
  description: "Echoes back the input",
  schema: z.object({ message: z.string() }),
  effect: "read",
  execute: async ({ message }) => `Echo: ${message}`,
};

async function measure(registry: ToolRegistry, name: string): Promise<number[]> {
  let index = 0;
  const once = () =>
    timeOnce(
      () => registry.prepare({ id: `call_${++index}`, name, arguments: JSON.stringify({ message: `hello ${index}` }) }),
      async (prepared) => {
        if (prepared.kind !== "ready") throw new Error(`${name}: ${prepared.message}`);
        const result = await registry.execute(prepared, context);
        if (result.outcome !== "ok") throw new Error(`${name}: ${result.result}`);
      },
    );
  await repeat(WARM_UP_CALLS, once);
  return (await repeat(CALLS, once)).map((ms) => ms * 1_000);
}

export async function run(): Promise<void> {
  const counter = TokenCounter.forModel("gpt-4o-mini");
  const options = { defaultTimeoutMs: 30_000, observationTokens: 2_000, counter };
  const command = fileURLToPath(new URL("../node_modules/.bin/mcp-server-everything", import.meta.url));
  const manager = createMcpManager(
    [
      {
        name: "everything",
        transport: { kind: "stdio", command, args: ["stdio"], env: {} },
        approval: "writes",
        tools: { allow: ["echo"], deny: [] },
        reads: [],
      },
    ],
    {
      logger: silentLogger,
      defaultTimeoutMs: 30_000,
    },
  );
  await manager.start();
  try {
    const direct = await measure(new ToolRegistry([echo], options), "echo");
    const overStdio = await measure(new ToolRegistry([], options, manager.tools), "everything__echo");
    const overhead = median(overStdio) - median(direct);
    printTable(
      ["tool call", "median µs", "p90 µs", "p99 µs"],
      [
        ["in-process", median(direct).toFixed(1), percentile(direct, 90).toFixed(1), percentile(direct, 99).toFixed(1)],
        ["MCP over stdio", median(overStdio).toFixed(1), percentile(overStdio, 90).toFixed(1), percentile(overStdio, 99).toFixed(1)],
      ],
    );
    console.log(
      `overhead of MCP over stdio: ${overhead.toFixed(1)} µs per call (median of ${CALLS} calls; target ≤ ${TARGET_OVERHEAD_US} µs) ${overhead <= TARGET_OVERHEAD_US ? "OK" : "OVER TARGET"}`,
    );
  } finally {
    await manager.close();
  }
}
