// MCP at the process level: `npm start` with a bad servers file stops with one line and exit
// code 1 (a real child process); a good one starts the servers, prints them with their tool
// counts, offers their tools in /tools, and stops them with the app.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { spawnMain } from "../../support/main-child.js";
import { repoRoot } from "../../support/repo-paths.js";
import { useAppHarness } from "../../support/app-harness.js";

const bin = (name: string) => join(repoRoot, "node_modules", ".bin", name);

const apps = useAppHarness();
let files = 0;

async function configFile(text: string): Promise<string> {
  const path = join(apps.folder, `mcp-${++files}.json`);
  await writeFile(path, text);
  return path;
}

describe("a bad MCP servers file stops the start with one line and exit code 1", () => {
  it.each([
    [
      "an unknown field",
      JSON.stringify({ mcpServers: { fs: { command: "x", comand: "y" } } }),
      /^Configuration error: .*mcp-\d+\.json: server "fs": unknown field "comand"$/,
    ],
    [
      "neither command nor url",
      JSON.stringify({ mcpServers: { fs: { args: [] } } }),
      /^Configuration error: .*mcp-\d+\.json: server "fs": expects "command" \(a server the bot starts\) or "url" \(an HTTP server\)$/,
    ],
    ["bad JSON", '{ "mcpServers": ', /^Configuration error: .*mcp-\d+\.json: is not valid JSON \(/],
  ])("%s", async (_case, text, expected) => {
    const main = spawnMain({ STORE_URL: apps.storeUrl(), MCP_CONFIG: await configFile(text) });
    const { code } = await main.exited;
    expect(code).toBe(1);
    const lines = main.stderr().trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(expected);
  });
});

describe("a good MCP servers file", () => {
  it("starts the servers, prints each with its tool count (a missing one as down), and offers their tools", async () => {
    const servers = {
      mcpServers: {
        fs: { command: bin("mcp-server-filesystem"), args: [apps.folder], approval: "never" },
        ghost: { command: join(apps.folder, "no-such-server") },
      },
    };
    const { type, shown, waitFor } = await apps.startConsole({
      MCP_CONFIG: await configFile(JSON.stringify(servers)),
      TOOL_POLICY: "fs__write_file=allow",
    });
    // What starts is said before the first try, which can be a minute of npx fetching.
    const starting = shown().indexOf(`MCP server fs: starting ${bin("mcp-server-filesystem")} ${apps.folder}\n`);
    expect(starting).toBeGreaterThanOrEqual(0);
    expect(shown()).toContain(`MCP server ghost: starting ${join(apps.folder, "no-such-server")}\n`);
    expect(shown().indexOf("MCP server fs: up")).toBeGreaterThan(starting);
    expect(shown()).toMatch(/^MCP server fs: up \(stdio\), \d+ tools$/m);
    expect(shown()).toContain(
      `MCP server ghost: failed to start (command not found: ${join(apps.folder, "no-such-server")}); retrying in the background\n`,
    );
    await waitFor(
      "! the tool policy (TOOL_POLICY) lets the write tool fs__write_file run without a person's approval",
      "the policy notice",
    );
    expect(shown()).toContain('! MCP server fs has "approval": "never": its write tools run without asking anyone');
    type("/tools");
    await waitFor("- fs__write_file: runs without asking (a write), MCP server fs (up)", "the MCP tools in /tools");
    expect(shown()).toContain("- fs__read_text_file: read, MCP server fs (up)");
    expect(shown()).toMatch(/^- fs: up \(stdio\), \d+ tools$/m);
    expect(shown()).toContain(`- ghost: failed to start (command not found: ${join(apps.folder, "no-such-server")}); retrying\n`);
  });
});
