// Whole runs with MCP tools: a real AgentService on SQLite, a scripted model, and real MCP
// servers (the reference filesystem server, the SDK-built test servers). Reads run; writes wait
// for approve/deny exactly like post_message; a dying or hanging server costs one observation.
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { RunningAgentService } from "../../../src/runs/service/create-agent-service.js";
import { call, say, ScriptedModel, type ScriptStep } from "../../support/model-scripted.js";
import type { AgentEvent, Model, ModelRequest, PendingApproval, RunOutcome, Tool } from "../../../src/contracts/types.js";
import { silentLogger, type Logger } from "../../../src/logger.js";
import type { McpServerConfig } from "../../../src/tools/mcp/mcp-config.js";
import { createMcpManager, type McpManager } from "../../../src/tools/mcp/mcp-manager.js";
import { startMcpHttpServer } from "../../support/mcp-http-server.js";
import { everythingServer, filesystemServer, serverConfig, testStdioServer, whenServers } from "../../support/mcp-servers.js";
import { usePerTest } from "../../support/per-test.js";
import { originFor } from "../../support/service-harness.js";
import { capturingLogger } from "../../support/capturing-logger.js";
import { startMcpService } from "../../support/mcp-harness.js";

const { folder, sqliteUrl, closeAfter } = usePerTest();
beforeAll(async () => {
  await writeFile(join(folder(), "notes.txt"), "the launch is on Tuesday");
});

interface Bot {
  readonly service: RunningAgentService;
  readonly manager: McpManager;
  readonly events: AgentEvent[];
  readonly sink: (event: AgentEvent) => void;
}

async function startBot(
  model: Model,
  servers: McpServerConfig[],
  env: Record<string, string> = {},
  logger: Logger = silentLogger,
): Promise<Bot> {
  const manager = createMcpManager(servers, { logger, defaultTimeoutMs: 10_000, backoffMs: [100], heartbeatMs: 200 });
  closeAfter(manager);
  await manager.start();
  const { service, close } = await startMcpService({
    model,
    manager,
    storeUrl: sqliteUrl(),
    env,
  });
  closeAfter({ close });
  const events: AgentEvent[] = [];
  return { service, manager, events, sink: (event) => events.push(event) };
}

const lastObservation = (request: ModelRequest) => request.messages.at(-1)?.content ?? "";
const answerWithObservation: ScriptStep = (request) => say(`Found: ${lastObservation(request)}`);

function answerOf(outcome: RunOutcome): string {
  if (outcome.status !== "answered") throw new Error(`expected an answer, got ${outcome.status}`);
  return outcome.answer;
}

function pendingOf(outcome: RunOutcome): PendingApproval {
  if (outcome.status !== "paused") throw new Error(`expected a pause, got ${outcome.status}`);
  return outcome.pending;
}

describe("the filesystem server in a run", () => {
  it("a read runs without approval and the model answers with the file's content", async () => {
    const model = new ScriptedModel([call("fs__read_text_file", { path: join(folder(), "notes.txt") }), answerWithObservation]);
    const { service, sink, events } = await startBot(model, [serverConfig("fs", filesystemServer(folder()))]);
    const outcome = await service.ask({ origin: originFor(), text: "when is the launch?" }, sink);
    expect(answerOf(outcome)).toBe("Found: the launch is on Tuesday");
    expect(events.some((event) => event.type === "approval_needed")).toBe(false);
    const offered = model.requests[0]!.tools.find((tool) => tool.name === "fs__read_text_file");
    expect(offered?.parameters).toMatchObject({ type: "object", required: ["path"] });
    expect(offered?.description).toMatch(/read/i);
  });

  it("a write waits for approval and runs once after approve", async () => {
    const target = join(folder(), "approved.txt");
    const model = new ScriptedModel([call("fs__write_file", { path: target, content: "shipped" }), answerWithObservation]);
    const { service, sink } = await startBot(model, [serverConfig("fs", filesystemServer(folder()))]);
    const pending = pendingOf(await service.ask({ origin: originFor(), text: "write it down" }, sink));
    expect(pending.tool).toBe("fs__write_file");
    expect(pending.source).toBe(
      "MCP server fs, tool write_file (readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false)",
    );
    expect(pending.args).toEqual({ path: target, content: "shipped" });
    expect(existsSync(target)).toBe(false);
    const decided = await service.decide(
      { runId: pending.runId, callId: pending.callId, decision: "approve", decidedBy: { id: "alice" } },
      sink,
    );
    expect(decided.kind).toBe("resumed");
    expect(await readFile(target, "utf8")).toBe("shipped");
    const again = await service.decide(
      { runId: pending.runId, callId: pending.callId, decision: "approve", decidedBy: { id: "alice" } },
      sink,
    );
    expect(again.kind).toBe("already_decided");
  });

  it("a denied write never runs, and the model is told", async () => {
    const target = join(folder(), "denied.txt");
    const model = new ScriptedModel([call("fs__write_file", { path: target, content: "nope" }), answerWithObservation]);
    const { service, sink } = await startBot(model, [serverConfig("fs", filesystemServer(folder()))]);
    const pending = pendingOf(await service.ask({ origin: originFor(), text: "write it down" }, sink));
    const decided = await service.decide(
      { runId: pending.runId, callId: pending.callId, decision: "deny", decidedBy: { id: "alice", name: "Alice" } },
      sink,
    );
    expect(decided).toMatchObject({ kind: "resumed", outcome: { status: "answered", answer: expect.stringMatching(/denied/i) } });
    expect(existsSync(target)).toBe(false);
  });

  it('TOOL_POLICY globs apply to prefixed names, and "approval": "always" asks even for reads', async () => {
    const model = new ScriptedModel([call("fs__list_directory", { path: folder() }), answerWithObservation]);
    const { service, sink } = await startBot(model, [serverConfig("fs", filesystemServer(folder()), { approval: "always" })], {
      TOOL_POLICY: "fs__write_*=deny",
    });
    expect(pendingOf(await service.ask({ origin: originFor(), text: "what is there?" }, sink)).tool).toBe("fs__list_directory");
    const denied = new ScriptedModel([call("fs__write_file", { path: join(folder(), "x.txt"), content: "x" }), answerWithObservation]);
    const other = await startBot(denied, [serverConfig("fs", filesystemServer(folder()), { approval: "never" })], {
      TOOL_POLICY: "fs__write_*=deny",
    });
    expect(answerOf(await other.service.ask({ origin: originFor(), text: "write" }, other.sink))).toMatch(
      /not allowed by this bot's tool policy/,
    );
    expect(existsSync(join(folder(), "x.txt"))).toBe(false);
  });

  it("/tools lists every tool with its server, read or write, its effect after policy, and whether its server is up", async () => {
    const { service } = await startBot(new ScriptedModel([]), [
      serverConfig("fs", filesystemServer(folder())),
      serverConfig("ghost", { kind: "stdio", command: "/nonexistent/ghost", args: [], env: {} }),
    ]);
    const list = service.tools.list("console");
    expect(list.tools).toContainEqual({ name: "calculator", effect: "read", up: true, afterPolicy: "read" });
    expect(list.tools).toContainEqual({
      name: "fs__write_file",
      server: "fs",
      effect: "write",
      approval: "asks",
      up: true,
      afterPolicy: "asks",
    });
    expect(list.tools).toContainEqual({
      name: "fs__read_text_file",
      server: "fs",
      effect: "read",
      approval: "runs without asking",
      up: true,
      afterPolicy: "read",
    });
    expect(list.servers).toEqual([
      { name: "fs", state: { kind: "up", via: "stdio" }, tools: expect.any(Number) },
      { name: "ghost", state: { kind: "failed", reason: "command not found: /nonexistent/ghost" }, tools: 0 },
    ]);
  });
});

describe("the everything server in a run", () => {
  it("progress notifications show as the running call's detail", async () => {
    const model = new ScriptedModel([
      call("everything__trigger-long-running-operation", { duration: 0.3, steps: 3 }),
      answerWithObservation,
    ]);
    const { service, sink, events } = await startBot(model, [serverConfig("everything", everythingServer)]);
    expect(answerOf(await service.ask({ origin: originFor(), text: "run it" }, sink))).toMatch(/^Found: Long running operation completed/);
    const progress = events.flatMap((event) => (event.type === "tool_progress" ? [event.detail] : []));
    // The last notification may race the result; the ones before it must have shown.
    expect(progress.slice(0, 2)).toEqual(["1/3", "2/3"]);
  });
});

describe("failures in a run", () => {
  it("a server killed mid-call: that call fails with a clear observation and the run answers", async () => {
    let pid = 0;
    const model = new ScriptedModel([call("t__sleep", {}), answerWithObservation]);
    const bot = await startBot(model, [serverConfig("t", testStdioServer)]);
    pid = Number(
      await bot.manager
        .tools()
        .find((tool) => tool.name === "t__pid")!
        .execute({}, { signal: new AbortController().signal, runId: "x", origin: originFor() }),
    );
    const sink = (event: AgentEvent) => {
      if (event.type === "tool_called") process.kill(pid, "SIGKILL");
    };
    const answer = answerOf(await bot.service.ask({ origin: originFor(), text: "sleep" }, sink));
    expect(answer).toMatch(/^Found: Error: the MCP server "t" (closed the connection during the call|is not connected)/);
  });

  it("a tool that never returns is cancelled at its timeout and the run goes on", async () => {
    const model = new ScriptedModel([call("t__sleep", {}), answerWithObservation]);
    const { service, sink } = await startBot(model, [serverConfig("t", testStdioServer, { timeoutMs: 300 })]);
    expect(answerOf(await service.ask({ origin: originFor(), text: "sleep" }, sink))).toBe(
      "Found: Timeout: t__sleep did not finish within 300 ms.",
    );
  });

  it("a call that outlives the run's deadline is cancelled through the protocol, and the run ends with its summary", async () => {
    const log = capturingLogger();
    const model = new ScriptedModel([call("t__sleep", {}), (request) => say(`Summary, offered ${request.tools.length} tools.`)]);
    const { service, sink } = await startBot(
      model,
      [serverConfig("t", testStdioServer, { timeoutMs: 60_000 })],
      { AGENT_RUN_TIMEOUT_MS: "1000" },
      log.logger,
    );
    const outcome = await service.ask({ origin: originFor(), text: "sleep" }, sink);
    expect(outcome).toMatchObject({ status: "answered", answer: "Summary, offered 0 tools.", stop: { guard: "deadline" } });
    expect(outcome.steps[0]!.calls[0]).toMatchObject({
      tool: "t__sleep",
      outcome: "timeout",
      result: "Timeout: t__sleep was stopped because the run's time ran out.",
    });
    await log.waitFor((line) => line.stderr === "sleep was cancelled");
  });

  it("list_changed adds a tool that the next model call sees, in the same run", async () => {
    const http = await startMcpHttpServer();
    closeAfter({ close: () => http.kill() });
    const model = new ScriptedModel([call("add_search", {}), call("wiki__search", {}), answerWithObservation]);
    const bot = await startBot(model, [serverConfig("wiki", { kind: "http", url: http.url, headers: {}, sse: false })]);
    // A tool of the bot's own that makes the server add one, and returns once the client re-listed its tools.
    const addSearch: Tool = {
      name: "add_search",
      description: "asks the wiki to offer search",
      schema: z.object({}),
      effect: "read",
      execute: async () => {
        http.addTool("search", "found 3 pages");
        await whenServers(bot.manager, () => bot.manager.tools().some((tool) => tool.name === "wiki__search"));
        return "search is on";
      },
    };
    bot.service.attach("console", { tools: [addSearch] });
    expect(answerOf(await bot.service.ask({ origin: originFor(), text: "search" }, bot.sink))).toBe("Found: found 3 pages");
    expect(model.requests[0]!.tools.map((tool) => tool.name)).not.toContain("wiki__search");
    expect(model.requests[1]!.tools.map((tool) => tool.name)).toContain("wiki__search");
  });
});
