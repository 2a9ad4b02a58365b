// A small stdio MCP server built with the SDK, for what the reference servers can't do on
// demand: tell its pid (so a test can kill it mid-call) and hold a call open until cancelled.
// Run: node --import tsx test/support/mcp-server-process.ts
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "test-stdio", version: "1.0.0" });
const readOnly = { readOnlyHint: true };

server.registerTool("pid", { description: "the server's process id", annotations: readOnly }, async () => ({
  content: [{ type: "text", text: String(process.pid) }],
}));

server.registerTool(
  "sleep",
  { description: "answers after ms milliseconds, or never", inputSchema: { ms: z.number().optional() }, annotations: readOnly },
  async ({ ms }, extra) => {
    await new Promise<void>((resolve) => {
      if (ms !== undefined) setTimeout(resolve, ms);
      extra.signal.addEventListener("abort", () => {
        process.stderr.write("sleep was cancelled\n");
        resolve();
      });
    });
    return { content: [{ type: "text", text: `slept ${ms ?? "until cancelled"}` }] };
  },
);

process.stderr.write("test-stdio server ready\n");
await server.connect(new StdioServerTransport());
