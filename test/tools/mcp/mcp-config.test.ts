// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are ${VAR} references as the servers file writes them
// The MCP servers file: the common format, ${VAR} from the bot's environment, and one clear
// line naming the server and the field for every kind of mistake.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadMcpConfig, parseMcpConfig } from "../../../src/tools/mcp/mcp-config.js";
import { repoRoot } from "../../support/repo-paths.js";
import { mcpConfigErrorOf } from "../../support/config-error.js";

const parse = (value: unknown, env: NodeJS.ProcessEnv = {}) =>
  parseMcpConfig(typeof value === "string" ? value : JSON.stringify(value), env, "mcp.json");

describe("MCP servers file", () => {
  it("reads stdio and HTTP servers with their defaults and expands ${VAR} in env, headers and args", () => {
    const servers = parse(
      {
        mcpServers: {
          fs: { command: "npx", args: ["-y", "server", "${DOCS}"], env: { X: "${X_VALUE}-y" } },
          jira: {
            url: "https://mcp.example.com/mcp",
            headers: { Authorization: "Bearer ${JIRA_TOKEN}" },
            approval: "always",
            tools: { deny: ["delete_*"] },
            reads: ["get_*"],
            timeoutMs: 5000,
          },
          old: { type: "sse", url: "http://127.0.0.1:9/sse" },
        },
      },
      { DOCS: "/srv/docs", X_VALUE: "x", JIRA_TOKEN: "t0k" },
    );
    expect(servers).toEqual([
      {
        name: "fs",
        approval: "writes",
        tools: { allow: ["*"], deny: [] },
        reads: [],
        timeoutMs: undefined,
        transport: { kind: "stdio", command: "npx", args: ["-y", "server", "/srv/docs"], env: { X: "x-y" }, cwd: undefined },
      },
      {
        name: "jira",
        approval: "always",
        tools: { allow: ["*"], deny: ["delete_*"] },
        reads: ["get_*"],
        timeoutMs: 5000,
        transport: { kind: "http", url: "https://mcp.example.com/mcp", headers: { Authorization: "Bearer t0k" }, sse: false },
      },
      {
        name: "old",
        approval: "writes",
        tools: { allow: ["*"], deny: [] },
        reads: [],
        timeoutMs: undefined,
        transport: { kind: "http", url: "http://127.0.0.1:9/sse", headers: {}, sse: true },
      },
    ]);
  });

  it.each([
    ["bad JSON", "{ mcpServers: ", /^mcp\.json: is not valid JSON \(/],
    ["no mcpServers", { servers: {} }, /^mcp\.json: field "mcpServers": expects an object of servers by name$/],
    ["an unknown field", { mcpServers: { fs: { command: "x", comand: "y" } } }, /^mcp\.json: server "fs": unknown field "comand"$/],
    [
      "neither command nor url",
      { mcpServers: { fs: { args: ["a"] } } },
      /^mcp\.json: server "fs": expects "command" \(a server the bot starts\) or "url" \(an HTTP server\)$/,
    ],
    ["both command and url", { mcpServers: { fs: { command: "x", url: "http://a" } } }, /^mcp\.json: server "fs": unknown field "url"$/],
    [
      "a bad approval",
      { mcpServers: { fs: { command: "x", approval: "sometimes" } } },
      /^mcp\.json: server "fs": field "approval": expects "writes", "always" or "never"$/,
    ],
    ["a bad url", { mcpServers: { jira: { url: "ftp://x" } } }, /^mcp\.json: server "jira": field "url": expects an http\(s\) URL$/],
    [
      "a bad timeout",
      { mcpServers: { fs: { command: "x", timeoutMs: -1 } } },
      /^mcp\.json: server "fs": field "timeoutMs": expects a number above 0$/,
    ],
    ["args not strings", { mcpServers: { fs: { command: "x", args: [1] } } }, /^mcp\.json: server "fs": field "args\.0": /],
    [
      "an unset variable",
      { mcpServers: { jira: { url: "http://a", headers: { Authorization: "Bearer ${NOPE}" } } } },
      /^mcp\.json: server "jira": field "headers\.Authorization" uses \$\{NOPE\}, which is not set in the environment$/,
    ],
  ])("%s: one line naming the server and the field", (_case, value, expected) => {
    expect(mcpConfigErrorOf(() => parse(value))).toMatch(expected);
  });
});

describe("finding the file", () => {
  let folder: string;
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), "mcp-config-"));
  });
  afterAll(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it("no MCP_CONFIG and no mcp.json: no servers", () => {
    expect(loadMcpConfig(undefined, {}, folder)).toEqual([]);
  });

  it("reads mcp.json from the working directory when it exists", async () => {
    const sub = await mkdtemp(join(folder, "cwd-"));
    await writeFile(join(sub, "mcp.json"), JSON.stringify({ mcpServers: { a: { command: "a" } } }));
    expect(loadMcpConfig(undefined, {}, sub).map((server) => server.name)).toEqual(["a"]);
  });

  it("the shipped mcp.example.json starts as it is: its servers that need a token or a provider are disabled", () => {
    const servers = loadMcpConfig("mcp.example.json", {}, repoRoot);
    expect(servers.map((server) => [server.name, server.transport.kind, server.approval])).toEqual([["fs", "stdio", "writes"]]);
  });

  it("the shipped mcp.example.json's disabled servers are valid once switched on", async () => {
    const shipped = JSON.parse(await readFile(join(repoRoot, "mcp.example.json"), "utf8")) as { mcpServers: Record<string, object> };
    const enabled = Object.fromEntries(
      Object.entries(shipped.mcpServers).map(([name, { disabled: _, ...entry }]: [string, { disabled?: boolean }]) => [name, entry]),
    );
    const env = { GITHUB_TOKEN: "ghp_x", WIKI_TOKEN: "w", TRACKER_CLIENT_ID: "bot", TRACKER_CLIENT_SECRET: "s" };
    const servers = parseMcpConfig(JSON.stringify({ mcpServers: enabled }), env, "mcp.json");
    expect(servers.map((server) => [server.name, server.transport.kind, server.approval, server.auth?.type])).toEqual([
      ["fs", "stdio", "writes", undefined],
      ["github", "stdio", "writes", undefined],
      ["wiki", "http", "always", undefined],
      ["tracker", "http", "writes", "user"],
    ]);
    // The GitHub server marks no tool read-only: its reads are listed, so a search asks nobody.
    expect(servers.find((server) => server.name === "github")?.reads).toEqual(["search_*", "get_*", "list_*"]);
  });

  it("a disabled server is not started and needs none of its variables, but its shape is still checked", () => {
    const file = (entry: object) => JSON.stringify({ mcpServers: { a: { command: "a" }, off: { disabled: true, ...entry } } });
    expect(parseMcpConfig(file({ command: "b", env: { T: "${UNSET}" } }), {}, "mcp.json").map((server) => server.name)).toEqual(["a"]);
    expect(mcpConfigErrorOf(() => parseMcpConfig(file({ command: "b", arg: ["x"] }), {}, "mcp.json"))).toBe(
      'mcp.json: server "off": unknown field "arg"',
    );
    expect(mcpConfigErrorOf(() => parseMcpConfig(file({ command: "b", disabled: "yes" }), {}, "mcp.json"))).toBe(
      'mcp.json: server "off": field "disabled": expects true or false',
    );
  });

  it("MCP_CONFIG naming a missing file is an error", () => {
    expect(mcpConfigErrorOf(() => loadMcpConfig("missing.json", {}, folder))).toBe("missing.json: cannot be read (ENOENT)");
  });
});
