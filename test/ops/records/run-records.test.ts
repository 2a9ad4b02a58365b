// Run records through the real service: one for every outcome (an answer, each guard, a Stop,
// an approval's expiry, a failure), a paused run and its later part as one record, secrets
// masked, metadata-only content, the size cap, fact extraction counted, and a record write that
// fails or hangs never delaying or losing the answer.
import { z } from "zod";
import { afterEach, describe, expect, it } from "vitest";
import { call, say, ScriptedModel } from "../../support/model-scripted.js";
import type { RunOutcome, Tool } from "../../../src/contracts/types.js";
import { usageBetween } from "../../../src/memory/run-records/usage-counters.js";
import type { KeyValueStore } from "../../../src/memory/types.js";
import { createRunRecorder } from "../../../src/ops/records/run-recorder.js";
import { createRunRecordStore } from "../../../src/memory/run-records/record-store.js";
import { silentLogger } from "../../../src/logger.js";
import { mapStore } from "../../support/map-store.js";
import { noteTool, originFor } from "../../support/service-harness.js";
import { useServiceHarnesses } from "../../support/service-harness.js";
import { startRecordedService, type RecordsHarness } from "../../support/records-harness.js";

const services = useServiceHarnesses();
const open: RecordsHarness[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((harness) => harness.close()));
});

async function recorded(model: ScriptedModel, options: Omit<Parameters<typeof startRecordedService>[0], "model" | "storeUrl"> = {}) {
  const harness = await startRecordedService({ model, storeUrl: services.sqliteUrl(), ...options });
  open.push(harness);
  return harness;
}

const usage = (promptTokens: number, completionTokens: number, cachedTokens?: number) => ({
  promptTokens,
  completionTokens,
  ...(cachedTokens === undefined ? {} : { cachedTokens }),
});

const ask = (harness: RecordsHarness, text: string, conversation = "console:records") =>
  harness.service.ask({ origin: originFor("alice", conversation), text }, () => {});

describe("a run record", () => {
  it("keeps an answered run: question, settings, steps with tokens and model time, tool results, the answer, the first request", async () => {
    const model = new ScriptedModel([
      { ...call("calculator", { expression: "6*7" }), usage: usage(100, 10, 40) },
      say("42", usage(130, 5)),
    ]);
    const harness = await recorded(model, { env: { AGENT_MAX_STEPS: "7" } });
    const outcome = await ask(harness, "what is 6*7?");
    const record = await harness.record(outcome.runId);
    expect(record).toMatchObject({
      surface: "console",
      conversationKey: "console:records",
      channel: "console",
      requester: { id: "alice", name: "alice" },
      question: "what is 6*7?",
      status: "answered",
      outcome: "answered",
      answer: "42",
      usage: { prompt: 230, completion: 15, cached: 40 },
      counted: { prompt: 230, completion: 15, cached: 40 },
      partial: false,
      cut: false,
    });
    expect(record.settings).toMatchObject({ model: "scripted", maxSteps: 7, maxConsecutiveErrors: 3 });
    expect(record.settings.tools.map((tool) => [tool.name, tool.effect, tool.policy])).toEqual([
      ["calculator", "read", "allow"],
      ["current_time", "read", "allow"],
    ]);
    expect(record.steps).toHaveLength(2);
    expect(record.steps[0]).toMatchObject({
      index: 1,
      usage: { prompt: 100, completion: 10, cached: 40 },
      toolCalls: [{ name: "calculator" }],
    });
    expect(record.steps[0]!.calls[0]).toMatchObject({ tool: "calculator", outcome: "ok", result: "42", resultLength: 2 });
    expect(record.steps[0]!.modelMs).toBeGreaterThanOrEqual(0);
    expect(record.firstRequest?.at(-1)).toEqual({ role: "user", content: "what is 6*7?" });
    expect(record.firstRequest?.[0]?.role).toBe("system");
    const [day] = await usageBetween(harness.store, Date.now(), Date.now());
    const all = day!.dimensions.find((dimension) => dimension.kind === "all")!;
    expect(all.byModel.get("scripted")).toMatchObject({ prompt: 230, completion: 15, cached: 40 });
    expect(all.counts.get("runs")).toBe(1);
    expect(all.counts.get("o:answered")).toBe(1);
  });

  const guardCases: Array<[string, () => ScriptedModel, Record<string, string>]> = [
    [
      "steps",
      () =>
        new ScriptedModel([], {
          whenExhausted: (request, index) =>
            request.tools.length === 0 ? say("gave up") : call("calculator", { expression: `1+${index}` }),
        }),
      { AGENT_MAX_STEPS: "3" },
    ],
    [
      "repeat",
      () =>
        new ScriptedModel([
          call("calculator", { expression: "1+1" }),
          call("calculator", { expression: "1+1" }),
          call("calculator", { expression: "1+1" }),
          say("summary"),
        ]),
      {},
    ],
    [
      "oscillation",
      () => {
        const a = call("calculator", { expression: "1+1" });
        const b = call("calculator", { expression: "2+2" });
        return new ScriptedModel([a, b, a, b, a, b, say("stuck")]);
      },
      {},
    ],
    ["errors", () => new ScriptedModel([call("nope", {}), call("nope", {}), call("nope", {}), say("sorry")]), {}],
    ["model_unavailable", () => new ScriptedModel([{ error: new Error("down") }]), {}],
    [
      "deadline",
      () => new ScriptedModel([call("calculator", { expression: "1+1" }), { never: true }, say("ran out")]),
      { AGENT_RUN_TIMEOUT_MS: "1000" },
    ],
    // A long question and one long result fill a small window past its red watermark.
    [
      "tokens",
      () => new ScriptedModel([call("long_read", {})], { whenExhausted: say("the window was full") }),
      { AGENT_CONTEXT_TOKENS: "1024", AGENT_RESERVED_OUTPUT_TOKENS: "256" },
    ],
  ];
  const longRead: Tool<object> = {
    name: "long_read",
    description: "reads a lot",
    schema: z.object({}),
    effect: "read",
    execute: async () => "lorem ipsum ".repeat(2_000),
  };
  it.each(guardCases)("keeps a run the %s guard stopped, with its trip on the timeline", async (guard, model, env) => {
    const harness = await recorded(model(), { env, tools: [longRead] });
    const outcome = await ask(harness, guard === "tokens" ? `trip tokens ${"with many words ".repeat(600)}` : `trip ${guard}`);
    const record = await harness.record(outcome.runId);
    expect(record.outcome).toBe("guard");
    expect(record.stop?.guard).toBe(guard);
    expect(record.notes.filter((note) => note.kind === "tripped").map((note) => note.guard)).toEqual([guard]);
    expect(record.answer).toBeTruthy();
    const page = await harness.recording.records.list({ guard, limit: 10 });
    expect(page.runs.map((run) => run.runId)).toEqual([outcome.runId]);
  });

  it("keeps a run a person stopped as stopped", async () => {
    const model = new ScriptedModel([call("calculator", { expression: "1+1" }), { never: true }, say("stopped early")]);
    const harness = await recorded(model);
    let runId = "";
    const running = harness.service.ask({ origin: originFor("alice", "console:records"), text: "long job" }, (event) => {
      runId = event.runId;
    });
    await until(async () => model.requests.length >= 2);
    expect(await harness.service.stop({ runId, stoppedBy: { id: "alice" }, surface: "console" })).toMatchObject({ kind: "stopping" });
    const outcome = await running;
    const record = await harness.record(outcome.runId);
    expect(record).toMatchObject({ outcome: "stopped", stop: { guard: "stopped" } });
  });

  it("goes with `forget`: the conversation's records are deleted with its facts, other conversations' stay", async () => {
    const harness = await recorded(new ScriptedModel([say("one"), say("two"), say("three")]));
    const first = await ask(harness, "first", "console:forgotten");
    await ask(harness, "second", "console:forgotten");
    const kept = await ask(harness, "third", "console:kept");
    await harness.recording.recorder.flushed();
    expect(await harness.service.memory.forget("console:forgotten")).toMatchObject({ facts: 0, files: 0 });
    expect((await harness.recording.records.load(first.runId)).kind).toBe("missing");
    const page = await harness.recording.records.list({ limit: 10 });
    expect(page.runs.map((run) => run.runId)).toEqual([kept.runId]);
  });

  it("keeps a paused run, then the same record with the decision and the rest of the run", async () => {
    const note = noteTool();
    const model = new ScriptedModel([{ ...call("post_note", { text: "hi" }), usage: usage(50, 5) }, say("Posted.", usage(60, 3))]);
    const harness = await recorded(model, { tools: [note.tool] });
    const paused = await ask(harness, "post hi");
    expect(paused.status).toBe("paused");
    const first = await harness.record(paused.runId);
    expect(first).toMatchObject({ status: "paused", outcome: "paused", approvals: [{ tool: "post_note", args: '{"text":"hi"}' }] });
    const pending = (paused as Extract<RunOutcome, { status: "paused" }>).pending;
    await harness.service.decide(
      { runId: pending.runId, callId: pending.callId, decision: "approve", decidedBy: { id: "alice" } },
      () => {},
    );
    await until(async () => (await harness.record(paused.runId)).status === "answered");
    const final = await harness.record(paused.runId);
    expect(final).toMatchObject({ outcome: "answered", answer: "Posted.", usage: { prompt: 110, completion: 8 }, partial: false });
    expect(final.approvals).toMatchObject([{ callId: pending.callId, decision: "approve", decidedBy: { id: "alice" } }]);
    expect(final.steps[0]!.calls[0]).toMatchObject({ tool: "post_note", outcome: "ok", result: "posted: hi" });
    expect(final.firstRequest).toEqual(first.firstRequest);
    expect(note.posted).toEqual(["hi"]);
    const all = (await usageBetween(harness.store, Date.now(), Date.now()))[0]!.dimensions.find((dimension) => dimension.kind === "all")!;
    expect(all.counts.get("runs")).toBe(1);
    expect(all.counts.get("o:paused")).toBe(0);
    expect(all.counts.get("o:answered")).toBe(1);
    expect(all.byModel.get("scripted")).toMatchObject({ prompt: 110, completion: 8 });
    expect((await harness.recording.records.list({ outcome: "paused", limit: 5 })).runs).toEqual([]);
  });

  it("keeps a paused run that expired as an approval_expired guard with the decision expired", async () => {
    let now = Date.now();
    const note = noteTool();
    const model = new ScriptedModel([call("post_note", { text: "late" }), say("nobody approved")]);
    // An expiry nobody waits for is shown by the surface's expiry handler (without one it is not ended).
    const harness = await recorded(model, {
      tools: [note.tool],
      clock: () => now,
      env: { APPROVAL_TIMEOUT_MS: "1000" },
      expired: () => {},
    });
    const paused = await ask(harness, "post late");
    now += 5_000;
    expect(await harness.service.sweepExpiredApprovals()).toBe(1);
    await until(async () => (await harness.record(paused.runId)).outcome === "guard");
    const record = await harness.record(paused.runId);
    expect(record.stop?.guard).toBe("approval_expired");
    expect(record.approvals[0]?.decision).toBe("expired");
    expect(note.posted).toEqual([]);
  });

  it("masks secrets as the logs do", async () => {
    const secretTool: Tool<object> = {
      name: "leaky",
      description: "returns a token",
      schema: z.object({}),
      effect: "read",
      execute: async () => "the key is sk-abcdefghijklmnop1234",
    };
    const model = new ScriptedModel([call("leaky", {}), say("done with xoxb-1111-2222-abcd")]);
    const harness = await recorded(model, { tools: [secretTool] });
    const outcome = await ask(harness, "use xoxb-9999-8888-zzzz please");
    const text = JSON.stringify(await harness.record(outcome.runId));
    expect(text).not.toMatch(/xoxb-\d|sk-abcdef/);
    expect(text).toContain("use [secret] please");
    expect(text).toContain("the key is [secret]");
  });

  it("keeps no message or tool text with RUN_RECORD_CONTENT=metadata", async () => {
    const model = new ScriptedModel([call("calculator", { expression: "2+3" }), say("five")]);
    const harness = await recorded(model, { env: { RUN_RECORD_CONTENT: "metadata" } });
    const outcome = await ask(harness, "private question about salaries");
    const record = await harness.record(outcome.runId);
    expect(record).toMatchObject({
      content: "metadata",
      question: "",
      questionLength: 31,
      steps: [{ calls: [{ tool: "calculator", args: "", result: "", resultLength: 1 }] }, {}],
    });
    expect(record.answer).toBeUndefined();
    expect(record.firstRequest).toBeUndefined();
    expect(JSON.stringify(record)).not.toMatch(/salaries|five|2\+3/);
  });

  it("cuts the longest results to fit RUN_RECORD_MAX_BYTES and notes their length", async () => {
    const big: Tool<object> = {
      name: "big",
      description: "big",
      schema: z.object({}),
      effect: "read",
      execute: async () => "x".repeat(200_000),
    };
    const model = new ScriptedModel([call("big", {}), say("ok")]);
    const harness = await recorded(model, { tools: [big], env: { RUN_RECORD_MAX_BYTES: "16384" } });
    const outcome = await ask(harness, "fetch big");
    const record = await harness.record(outcome.runId);
    expect(Buffer.byteLength(JSON.stringify(record))).toBeLessThanOrEqual(16_384);
    expect(record.cut).toBe(true);
    expect(record.steps[0]!.calls[0]).toMatchObject({ cut: true, resultLength: 200_000 });
    expect(record.steps[0]!.calls[0]!.result).toContain("[cut: 200,000 characters in full]");
  });

  it("counts fact extraction's tokens in the day's usage, apart and in the total", async () => {
    const model = new ScriptedModel([say("noted", usage(20, 2)), { text: '{"facts":["Alice likes tea."]}', usage: usage(70, 9) }]);
    const harness = await recorded(model, { env: { MEMORY_EXTRACT_FACTS: "true" } });
    await ask(harness, "I like tea");
    await until(async () => (await harness.service.memory.facts("console:records")).length === 1);
    await harness.service.close();
    await harness.recording.recorder.flushed();
    const all = (await usageBetween(harness.store, Date.now(), Date.now()))[0]!.dimensions.find((dimension) => dimension.kind === "all")!;
    expect(all.byModel.get("scripted")).toMatchObject({ prompt: 90, completion: 11, factsPrompt: 70, factsCompletion: 9 });
  });

  it("a record write that hangs or fails neither delays nor changes the answer", async () => {
    for (const fault of ["hang", "fail"] as const) {
      const faulty = (store: KeyValueStore): KeyValueStore => ({
        ...store,
        set: (key, value, ttl) =>
          key.startsWith("runs:")
            ? fault === "hang"
              ? new Promise(() => {})
              : Promise.reject(new Error("disk full"))
            : store.set(key, value, ttl),
      });
      const harness = await startRecordedService({
        model: new ScriptedModel([say("still here")]),
        storeUrl: services.sqliteUrl(),
        wrapStore: faulty,
      });
      const outcome = await ask(harness, "hello");
      expect(outcome).toMatchObject({ status: "answered", answer: "still here" });
      await harness.service.close();
      await harness.recording.close(50);
    }
  });
});

describe("the recorder", () => {
  it("keeps a run that failed without an outcome, with the steps its events showed", async () => {
    const store = mapStore();
    const records = createRunRecordStore(store, { days: 30, max: 100 });
    const recorder = createRunRecorder({ store, records, logger: silentLogger, content: "full", maxBytes: 65_536 });
    const origin = originFor("bob", "console:failing");
    recorder.runStarted?.("r-failed", origin, "new");
    recorder.event({ type: "step_started", runId: "r-failed", step: 1 }, origin);
    recorder.event({ type: "model_replied", runId: "r-failed", step: 1, text: null, toolCalls: [], usage: usage(9, 1) }, origin);
    recorder.runFailed?.("r-failed", origin, new Error("the store went away"));
    await recorder.flushed();
    const loaded = await records.load("r-failed");
    expect(loaded).toMatchObject({
      kind: "found",
      record: { status: "failed", outcome: "failed", failure: "the store went away", usage: { prompt: 9, completion: 1 } },
    });
    await recorder.close();
  });
});

async function until(check: () => Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
