// Stop through the real service: a run whose model call hangs ends at once with its summary and
// "Stopped by <name>.", whichever process on a shared (Redis) store takes the click; only the
// requester or an approver may stop it; an approved write in flight finishes and is reported.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createAgentService, type RunningAgentService } from "../../../src/runs/service/create-agent-service.js";
import { z } from "zod";
import type { AgentEvent, Model, RunOutcome, TaskOrigin, Tool, ToolCall } from "../../../src/contracts/types.js";
import { loadConfig } from "../../../src/config.js";
import { silentLogger } from "../../../src/logger.js";
import { createAuthority } from "../../../src/governance/authority.js";
import { fixedSettings } from "../../../src/governance/settings-source.js";
import { openStore } from "../../../src/memory/keyv-store.js";
import { startRedisServer } from "../../support/redis-server.js";
import { describeWithRedis } from "../../support/redis-suite.js";
import type { KeyValueStore } from "../../../src/memory/types.js";

/** Every call hangs until its signal aborts, as a stuck model server would (the SDK rejects on abort). */
const hangingModel: Model = {
  name: "gpt-4o-mini",
  complete: (_request, signal) =>
    new Promise((_, reject) => {
      signal.addEventListener("abort", () => reject(signal.reason), { once: true });
    }),
};

const origin: TaskOrigin = { surface: "console", conversationKey: "console:stop", requester: { id: "alice", name: "Alice" }, place: {} };

const opened: Array<{ service: RunningAgentService; store: KeyValueStore }> = [];
afterEach(async () => {
  for (const { service, store } of opened.splice(0)) {
    await service.close(1_000);
    await store.close();
  }
});

async function process(
  storeUrl: string,
  model: Model = hangingModel,
  tools: readonly Tool[] = [],
  env: Record<string, string> = {},
): Promise<RunningAgentService> {
  const config = loadConfig({ STORE_URL: storeUrl, MEMORY_EXTRACT_FACTS: "false", ...env });
  const store = await openStore(config.storeUrl, silentLogger);
  // "boss" approves on the console, as DISCORD_APPROVERS or SLACK_APPROVERS do on theirs.
  const authority = createAuthority({ approvers: { users: { console: ["boss"] } }, settings: fixedSettings() });
  const service = createAgentService({ config, model, store, logger: silentLogger, authority });
  service.attach("console", { tools });
  await service.start();
  opened.push({ service, store });
  return service;
}

/** Starts a run and resolves with its id once its model call is in flight. */
function startRun(service: RunningAgentService): { runId: Promise<string>; outcome: Promise<RunOutcome> } {
  let found: (id: string) => void = () => {};
  const runId = new Promise<string>((resolve) => (found = resolve));
  const sink = (event: AgentEvent) => {
    if (event.type === "step_started") found(event.runId);
  };
  return { runId, outcome: service.ask({ origin, text: "think forever" }, sink) };
}

/** A write tool that holds each call until `release()`; `writing` resolves once a call is in it. */
function heldNoteTool() {
  let started: () => void = () => {};
  const writing = new Promise<void>((resolve) => (started = resolve));
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  const posted: string[] = [];
  const tool: Tool<{ text: string }> = {
    name: "post_note",
    description: "posts a note",
    schema: z.object({ text: z.string() }),
    effect: "write",
    async execute({ text }, { signal }) {
      started();
      await released;
      // The write is made either way; a tool that honours its signal would give up here if the Stop cancelled it.
      posted.push(signal.aborted ? `${text} (cancelled)` : text);
      return `posted: ${text}`;
    },
  };
  return { tool, writing, release, posted };
}

/** Asks for these tool calls, then hangs like `hangingModel`. */
function callsThenHangs(toolCalls: readonly ToolCall[]): Model {
  let calls = 0;
  return {
    name: "gpt-4o-mini",
    complete: (request, signal) => {
      calls += 1;
      if (calls === 1) return Promise.resolve({ content: null, toolCalls });
      return hangingModel.complete(request, signal);
    },
  };
}

const storeUrl = () => `sqlite://${join(mkdtempSync(join(tmpdir(), "run-stop-")), "bot.sqlite")}`;

describe("Stop", () => {
  it("ends a run whose model call hangs within 2 s, with the summary and who stopped it", async () => {
    const service = await process(storeUrl());
    const run = startRun(service);
    const runId = await run.runId;
    const clicked = performance.now();
    expect(await service.stop({ runId, stoppedBy: { id: "alice", name: "Alice" }, surface: "console" })).toEqual({ kind: "stopping" });
    const outcome = await run.outcome;
    expect(performance.now() - clicked).toBeLessThan(2_000);
    expect(outcome).toMatchObject({ status: "answered", stop: { guard: "stopped", sentence: "Stopped by Alice." } });
    expect(outcome.status === "answered" && outcome.answer.length).toBeGreaterThan(0);
  });

  it("lets only the requester or an approver stop a run", async () => {
    const service = await process(storeUrl());
    const run = startRun(service);
    const runId = await run.runId;
    expect(await service.stop({ runId, stoppedBy: { id: "mallory" }, surface: "console" })).toEqual({
      kind: "not_allowed",
      requester: { id: "alice", name: "Alice" },
    });
    expect(await service.stop({ runId, stoppedBy: { id: "boss", name: "Boss" }, surface: "console" })).toEqual({ kind: "stopping" });
    expect(await run.outcome).toMatchObject({ stop: { sentence: "Stopped by Boss." } });
    expect(await service.stop({ runId, stoppedBy: { id: "alice" }, surface: "console" })).toEqual({ kind: "not_running" });
  });

  it("lets an approved write in flight finish, reports it, then stops", async () => {
    const note = heldNoteTool();
    const model = callsThenHangs([{ id: "call_1", name: "post_note", arguments: '{"text":"hello"}' }]);
    const service = await process(storeUrl(), model, [note.tool]);
    const paused = await service.ask({ origin, text: "post hello" }, () => {});
    if (paused.status !== "paused") throw new Error("expected the run to wait for approval");
    const decided = service.decide(
      { runId: paused.runId, callId: paused.pending.callId, decision: "approve", decidedBy: origin.requester },
      () => {},
    );
    await note.writing;
    expect(await service.stop({ runId: paused.runId, stoppedBy: { id: "alice", name: "Alice" }, surface: "console" })).toEqual({
      kind: "stopping",
    });
    note.release();
    const result = await decided;
    expect(note.posted).toEqual(["hello"]);
    if (result.kind !== "resumed" || !result.outcome) throw new Error(`expected the run to go on, got ${result.kind}`);
    expect(result.outcome).toMatchObject({ status: "answered", stop: { guard: "stopped", sentence: "Stopped by Alice." } });
    expect(result.outcome.steps.flatMap((step) => step.calls)).toMatchObject([
      { tool: "post_note", outcome: "ok", result: "posted: hello" },
    ]);
  });

  it("lets a write the tool policy allows finish when a Stop comes during it, reports its real outcome, and starts no write after it", async () => {
    const note = heldNoteTool();
    const model = callsThenHangs([
      { id: "call_1", name: "post_note", arguments: '{"text":"hello"}' },
      { id: "call_2", name: "post_note", arguments: '{"text":"again"}' },
    ]);
    const service = await process(storeUrl(), model, [note.tool], { TOOL_POLICY: "post_note=allow" });
    const run = startRun(service);
    const runId = await run.runId;
    await note.writing;
    expect(await service.stop({ runId, stoppedBy: { id: "alice", name: "Alice" }, surface: "console" })).toEqual({ kind: "stopping" });
    note.release();
    const outcome = await run.outcome;
    expect(note.posted).toEqual(["hello"]);
    expect(outcome).toMatchObject({ status: "answered", stop: { guard: "stopped", sentence: "Stopped by Alice." } });
    const [first, second] = outcome.status === "answered" ? outcome.steps.flatMap((step) => step.calls) : [];
    expect(first).toMatchObject({ tool: "post_note", outcome: "ok", result: "posted: hello" });
    expect(second).toMatchObject({ tool: "post_note", callId: "call_2" });
    expect(second?.outcome).not.toBe("ok");
  });
});

describeWithRedis("Stop across processes", () => {
  it("stops a run from another process on the same Redis store", async () => {
    const redis = await startRedisServer();
    try {
      const running = await process(redis.url);
      const other = await process(redis.url);
      const run = startRun(running);
      const runId = await run.runId;
      const clicked = performance.now();
      expect(await other.stop({ runId, stoppedBy: { id: "mallory" }, surface: "console" })).toEqual({
        kind: "not_allowed",
        requester: { id: "alice", name: "Alice" },
      });
      expect(await other.stop({ runId, stoppedBy: { id: "alice", name: "Alice" }, surface: "console" })).toEqual({ kind: "stopping" });
      expect(await run.outcome).toMatchObject({ stop: { guard: "stopped", sentence: "Stopped by Alice." } });
      expect(performance.now() - clicked).toBeLessThan(2_000);
    } finally {
      for (const { service, store } of opened.splice(0)) {
        await service.close(1_000);
        await store.close();
      }
      await redis.stop();
    }
  });
});
