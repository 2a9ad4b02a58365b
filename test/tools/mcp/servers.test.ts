// The MCP manager against real servers: the reference servers over stdio (everything,
// filesystem), a test server built with the SDK (stdio and HTTP). Calls go through the real
// tool registry, so validation, timeouts and observations are what a run gets.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { TokenCounter } from "../../../src/tokens/token-counter.js";
import { ToolRegistry, type Execution } from "../../../src/agent/tools/tool-registry.js";
import type { ToolCall, ToolContext } from "../../../src/contracts/types.js";
import { createMcpManager, type McpManager, type McpManagerOptions } from "../../../src/tools/mcp/mcp-manager.js";
import type { McpServerConfig } from "../../../src/tools/mcp/mcp-config.js";
import { everythingServer, filesystemServer, serverConfig, testStdioServer, whenServers } from "../../support/mcp-servers.js";
import { toolListText } from "../../../src/adapters/core/tool-list-text.js";
import { freePort } from "../../support/free-port.js";
import { startMcpHttpServer, type TestMcpHttpServer } from "../../support/mcp-http-server.js";
import { capturingLogger } from "../../support/capturing-logger.js";

const counter = TokenCounter.forModel("gpt-4o-mini");
const context: ToolContext = {
  signal: new AbortController().signal,
  runId: "run-1",
  origin: { surface: "console", conversationKey: "console:mcp", requester: { id: "alice" }, place: {} },
};

let folder: string;
const managers: McpManager[] = [];
const httpServers: TestMcpHttpServer[] = [];

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), "mcp-servers-"));
  await writeFile(join(folder, "notes.txt"), "the launch is on Tuesday");
});
afterEach(async () => {
  await Promise.all(managers.splice(0).map((manager) => manager.close()));
  await Promise.all(httpServers.splice(0).map((server) => server.kill()));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

async function start(configs: McpServerConfig[], options: Partial<McpManagerOptions> = {}) {
  const log = capturingLogger();
  const manager = createMcpManager(configs, {
    logger: log.logger,
    defaultTimeoutMs: 10_000,
    backoffMs: [100, 200, 400],
    heartbeatMs: 200,
    ...options,
  });
  managers.push(manager);
  await manager.start();
  const registry = new ToolRegistry([], { defaultTimeoutMs: 10_000, observationTokens: 2_000, counter }, () => manager.tools());
  let calls = 0;
  const call = async (
    name: string,
    args: object,
    signal = context.signal,
  ): Promise<Execution | { outcome: "invalid_args" | "unknown_tool"; result: string }> => {
    const toolCall: ToolCall = { id: `call_${++calls}`, name, arguments: JSON.stringify(args) };
    const prepared = registry.prepare(toolCall);
    if (prepared.kind === "rejected") return { outcome: prepared.outcome, result: prepared.message };
    return registry.execute(prepared, { ...context, signal });
  };
  return { manager, registry, log, call };
}

describe("the reference servers over stdio", () => {
  it("lists prefixed tools with the server's schema, and reads are reads only when marked read-only", async () => {
    const { manager, registry } = await start([serverConfig("fs", filesystemServer(folder)), serverConfig("everything", everythingServer)]);
    expect(manager.servers().map((server) => [server.name, server.state.kind])).toEqual([
      ["fs", "up"],
      ["everything", "up"],
    ]);
    const read = registry.get("fs__read_text_file")!;
    expect(read.effect).toBe("read");
    expect(registry.get("fs__write_file")!.effect).toBe("write");
    expect(registry.get("everything__toggle-simulated-logging")!.effect).toBe("write");
    const schema = registry.schemas.find((tool) => tool.name === "fs__read_text_file")!;
    expect(schema.parameters).toMatchObject({ type: "object", required: ["path"] });
    expect(schema.parameters).not.toHaveProperty("$schema");
    expect(manager.describe().tools.find((line) => line.name === "fs__write_file")).toEqual({
      name: "fs__write_file",
      server: "fs",
      effect: "write",
      approval: "asks",
      up: true,
    });
  });

  it("calls tools: text, structured content as JSON, an image as a note, an error as a failed call", async () => {
    const { call } = await start([serverConfig("fs", filesystemServer(folder)), serverConfig("everything", everythingServer)]);
    expect(await call("fs__read_text_file", { path: join(folder, "notes.txt") })).toMatchObject({
      outcome: "ok",
      result: "the launch is on Tuesday",
    });
    const structured = await call("everything__get-structured-content", { location: "Chicago" });
    expect(structured.outcome).toBe("ok");
    expect(JSON.parse(structured.result)).toHaveProperty("temperature");
    expect(await call("everything__get-tiny-image", {})).toMatchObject({
      outcome: "ok",
      result: expect.stringMatching(/\[image: image\/png, \d+(\.\d)? (bytes|KB)\]/),
    });
    expect(await call("fs__read_text_file", { path: join(folder, "missing.txt") })).toMatchObject({
      outcome: "error",
      result: expect.stringMatching(/^Error: .*ENOENT/),
    });
  });

  it("checks arguments against the server's JSON schema before calling", async () => {
    const { call } = await start([serverConfig("everything", everythingServer)]);
    const wrong = await call("everything__get-sum", { a: "one" });
    expect(wrong.outcome).toBe("invalid_args");
    expect(wrong.result).toBe(
      "Error: invalid arguments for everything__get-sum: arguments: the arguments must have required property 'b', a must be number. Fix them and call again.",
    );
    expect(await call("everything__get-sum", { a: 1, b: 2 })).toMatchObject({ outcome: "ok", result: expect.stringContaining("3") });
  });

  it("gives a stdio server only the safe environment and its own env: the bot's tokens never reach it", async () => {
    const secrets = { SLACK_BOT_TOKEN: "xoxb-secret-1", OPENAI_API_KEY: "sk-secret-2", DISCORD_TOKEN: "discord-secret-3" };
    Object.assign(process.env, secrets);
    try {
      const { call } = await start([serverConfig("everything", { ...everythingServer, env: { TEAM_SETTING: "blue" } })]);
      const env = await call("everything__get-env", {});
      expect(env.outcome).toBe("ok");
      expect(env.result).toContain("TEAM_SETTING");
      expect(env.result).toContain("PATH");
      for (const [name, value] of Object.entries(secrets)) {
        expect(env.result).not.toContain(name);
        expect(env.result).not.toContain(value);
      }
    } finally {
      for (const name of Object.keys(secrets)) delete process.env[name];
    }
  });

  it("a server whose command does not exist: one log line, the other server works", async () => {
    const { manager, log, call } = await start(
      [
        serverConfig("ghost", { kind: "stdio", command: "/nonexistent/mcp-ghost", args: [], env: {} }),
        serverConfig("fs", filesystemServer(folder)),
      ],
      { backoffMs: [60_000] },
    );
    expect(manager.servers().map((server) => [server.name, server.state.kind])).toEqual([
      ["ghost", "failed"],
      ["fs", "up"],
    ]);
    const warnings = log.lines.filter((line) => line.mcpServer === "ghost" && (line.level as number) >= 40);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.msg).toBe("MCP server ghost: command not found: /nonexistent/mcp-ghost; retrying with backoff");
    expect(await call("fs__list_directory", { path: folder })).toMatchObject({
      outcome: "ok",
      result: expect.stringContaining("notes.txt"),
    });
    expect((await call("ghost__anything", {})).outcome).toBe("unknown_tool");
  });

  it("only the tools a server's allow and deny lists let through", async () => {
    const { registry } = await start([
      serverConfig("fs", filesystemServer(folder), { tools: { allow: ["read_*", "list_directory"], deny: ["read_media_file"] } }),
    ]);
    expect(registry.names.sort()).toEqual(["fs__list_directory", "fs__read_file", "fs__read_multiple_files", "fs__read_text_file"]);
  });
});

describe("failures", () => {
  it("a tool that never returns is cancelled at its timeout, through the protocol", async () => {
    const { call, log } = await start([serverConfig("t", testStdioServer, { timeoutMs: 300 })]);
    const result = await call("t__sleep", {});
    expect(result).toMatchObject({ outcome: "timeout", result: "Timeout: t__sleep did not finish within 300 ms." });
    // The server saw notifications/cancelled: its handler's signal aborted (its stderr is in the bot's log).
    await log.waitFor((line) => line.stderr === "sleep was cancelled");
    expect(await call("t__sleep", { ms: 1 })).toMatchObject({ outcome: "ok", result: "slept 1" });
  });

  it("a server killed mid-call: the call fails with a clear observation, and the server is back with working tools", async () => {
    const { manager, call } = await start([serverConfig("t", testStdioServer)]);
    const pid = Number((await call("t__pid", {})).result);
    const pending = call("t__sleep", {});
    process.kill(pid, "SIGKILL");
    const failed = await pending;
    expect(failed.outcome).toBe("error");
    expect(failed.result).toMatch(
      /^Error: the MCP server "t" (closed the connection during the call \(it may have crashed\), so sleep did not finish|is not connected)/,
    );
    await whenServers(manager, () => manager.servers()[0]!.state.kind === "up" && manager.tools().length > 0);
    const again = await call("t__pid", {});
    expect(again.outcome).toBe("ok");
    expect(Number(again.result)).not.toBe(pid);
  });
});

describe("an HTTP server built with the SDK", () => {
  it("sends the configured headers, and a list_changed adds a tool for the next call", async () => {
    const http = await startMcpHttpServer();
    httpServers.push(http);
    const { manager, registry, call } = await start([
      serverConfig("wiki", { kind: "http", url: http.url, headers: { Authorization: "Bearer t0k" }, sse: false }),
    ]);
    expect(manager.servers()[0]!.state).toEqual({ kind: "up", via: "streamable-http" });
    expect(http.requests.length).toBeGreaterThan(0);
    expect(http.requests.every((request) => request.headers.authorization === "Bearer t0k")).toBe(true);
    expect(registry.get("wiki__delete_page")!.effect).toBe("write");
    expect(await call("wiki__echo", { text: "hi" })).toMatchObject({ outcome: "ok", result: "echo: hi" });

    http.addTool("search", "found 3 pages");
    await whenServers(manager, () => registry.get("wiki__search"));
    expect(await call("wiki__search", {})).toMatchObject({ outcome: "ok", result: "found 3 pages" });
  });

  it("falls back to the old SSE transport when Streamable HTTP is refused with a 4xx", async () => {
    const http = await startMcpHttpServer({ sseOnly: true });
    httpServers.push(http);
    const { manager, call } = await start([
      serverConfig("old", { kind: "http", url: http.url, headers: { "X-Team": "blue" }, sse: false }),
    ]);
    expect(manager.servers()[0]!.state).toEqual({ kind: "up", via: "sse" });
    expect(await call("old__echo", { text: "still here" })).toMatchObject({ outcome: "ok", result: "echo: still here" });
    expect(http.requests.filter((request) => request.headers["x-team"] === "blue").length).toBe(http.requests.length);
  });

  it("a server that dies: its tools disappear and its calls fail; the other server goes on", async () => {
    const http = await startMcpHttpServer();
    const { manager, registry, call } = await start([
      serverConfig("wiki", { kind: "http", url: http.url, headers: {}, sse: false }),
      serverConfig("t", testStdioServer),
    ]);
    expect(registry.get("wiki__echo")).toBeDefined();
    const wikiEcho = registry.get("wiki__echo")!;
    await http.kill();
    await whenServers(manager, () => manager.servers()[0]!.state.kind === "down");
    expect(registry.get("wiki__echo")).toBeUndefined();
    await expect(wikiEcho.execute({ text: "x" }, context)).rejects.toThrow(/^the MCP server "wiki" is not connected/);
    expect(manager.describe().tools.find((line) => line.name === "wiki__echo")).toMatchObject({ up: false });
    expect((await call("t__pid", {})).outcome).toBe("ok");
  });
});

describe("every configured server in /tools, with its state and why", () => {
  it("a missing command, a server that exits, one that never answers, an HTTP status, a refused port, one that was lost", async () => {
    const guarded = await startMcpHttpServer({ token: "right" });
    const lost = await startMcpHttpServer();
    httpServers.push(guarded, lost);
    const closedPort = await freePort();
    const silent = "process.stdin.on('end', () => process.exit(0)); process.stdin.resume()";
    const { manager } = await start(
      [
        serverConfig("ghost", { kind: "stdio", command: "/nonexistent/mcp-ghost", args: [], env: {} }),
        serverConfig("quits", { kind: "stdio", command: process.execPath, args: ["-e", "process.exit(3)"], env: {} }),
        serverConfig("mute", { kind: "stdio", command: process.execPath, args: ["-e", silent], env: {} }),
        serverConfig("locked", { kind: "http", url: guarded.url, headers: { Authorization: "Bearer wrong" }, sse: false }),
        serverConfig("nobody", { kind: "http", url: `http://127.0.0.1:${closedPort}/mcp`, headers: {}, sse: false }),
        serverConfig("wiki", { kind: "http", url: lost.url, headers: {}, sse: false }),
      ],
      { backoffMs: [60_000], connectTimeoutMs: 1_000 },
    );
    expect(manager.servers()[5]!.state).toEqual({ kind: "up", via: "streamable-http" });
    await lost.kill();
    await whenServers(manager, () => manager.servers()[5]!.state.kind === "down");
    const { servers, tools } = manager.describe();
    expect(servers).toEqual([
      { name: "ghost", state: { kind: "failed", reason: "command not found: /nonexistent/mcp-ghost" }, tools: 0 },
      { name: "quits", state: { kind: "failed", reason: "the server process exited with code 3 before the handshake" }, tools: 0 },
      { name: "mute", state: { kind: "failed", reason: "no answer within 1 s" }, tools: 0 },
      { name: "locked", state: { kind: "failed", reason: `HTTP 401 from ${new URL(guarded.url).host}` }, tools: 0 },
      { name: "nobody", state: { kind: "failed", reason: `connection refused by 127.0.0.1:${closedPort}` }, tools: 0 },
      {
        name: "wiki",
        // Refused, or cut off by the kill: either way the reason names where it was reaching.
        state: {
          kind: "down",
          reason: expect.stringMatching(new RegExp(`^it stopped answering \\(.*${new URL(lost.url).host.replaceAll(".", "\\.")}.*\\)$`)),
        },
        tools: 2,
      },
    ]);
    expect(tools.map((tool) => [tool.name, tool.up])).toEqual([
      ["wiki__echo", false],
      ["wiki__delete_page", false],
    ]);
    expect(toolListText({ tools: tools.map((tool) => ({ ...tool, afterPolicy: "asks" as const })), servers })).toContain(
      "- quits: failed to start (the server process exited with code 3 before the handshake); retrying\n",
    );
  });

  it("a stdio server that dies after it was up is down, saying how its process ended", async () => {
    const { manager, call, log } = await start([serverConfig("t", testStdioServer)], { backoffMs: [60_000] });
    process.kill(Number((await call("t__pid", {})).result), "SIGKILL");
    await whenServers(manager, () => manager.servers()[0]!.state.kind === "down");
    expect(manager.servers()[0]!.state).toEqual({ kind: "down", reason: "the server process was killed by SIGKILL" });
    expect(log.lines.some((line) => line.msg === "MCP server t: the server process was killed by SIGKILL; retrying with backoff")).toBe(
      true,
    );
  });
});
