// The durable runner through the real service on SQLite: intake dedupe and retake, a damaged
// checkpoint, the concurrency cap, and memory writes after the answer outside the run slot.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { call, calls, ScriptedModel, say, type ScriptedReply } from "../../support/model-scripted.js";
import type { RunPresenter } from "../../../src/runs/api/presenting.js";
import type { AgentEvent, ModelRequest, RunOutcome, TaskOrigin, Tool } from "../../../src/contracts/types.js";
import { createIntakeStore, intakeIdFor } from "../../../src/runs/intake/intake-store.js";
import { UNKNOWN_OUTCOME } from "../../../src/runs/worker/write-ledger.js";
import { CONNECT_BASE, connectStandIn, type ConnectStandIn, type HarnessConnect } from "../../support/connect-stand-in.js";
import { startService, type ServiceHarness } from "../../support/service-harness.js";
import { until } from "../../support/until.js";
import { usePerTest } from "../../support/per-test.js";
import type { KeyValueStore } from "../../../src/memory/types.js";

const { sqliteUrl, closeAfter } = usePerTest();

const origin = (conversation: string): TaskOrigin => ({
  surface: "console",
  conversationKey: `console:${conversation}`,
  requester: { id: "alice" },
  place: {},
});
const lastUser = (request: ModelRequest) =>
  String([...request.messages].reverse().find((message) => message.role === "user")?.content ?? "");

/** Records what the runner shows for each conversation, in order. */
function shown(
  harness: ServiceHarness,
  tools: readonly Tool[] = harness.tools,
): Array<{ conversationKey: string; outcome: RunOutcome; at: number }> {
  const seen: Array<{ conversationKey: string; outcome: RunOutcome; at: number }> = [];
  harness.service.attach("console", {
    tools,
    present: (from): RunPresenter => ({
      sink: () => {},
      async finish(outcome) {
        seen.push({ conversationKey: from.conversationKey, outcome, at: performance.now() });
        return { messageId: "shown" };
      },
      fail: async (error) => {
        throw error;
      },
    }),
  });
  return seen;
}

/** A store whose marking of a message as `state` fails the first `times` times, as a store that blinks. */
function failingIntakeMark(state: "running" | "done", times = 1) {
  let left = times;
  return {
    failuresLeft: () => left,
    wrapStore: (real: KeyValueStore): KeyValueStore => ({
      ...real,
      set: async (key, value, ttl) => {
        if (left > 0 && key.startsWith("intake:") && (value as { state?: string }).state === state) {
          left -= 1;
          throw new Error("store blinked");
        }
        return real.set(key, value, ttl);
      },
    }),
  };
}

/** Not started: each test attaches its presenter first, then starts it, as app.ts does. */
async function service(
  model: ScriptedModel,
  storeUrl: string,
  env: Record<string, string> = {},
  connect?: HarnessConnect,
): Promise<ServiceHarness> {
  const harness = await startService({ model, storeUrl, env, start: false, ...(connect ? { connect } : {}) });
  closeAfter(harness);
  return harness;
}

describe("intake records", () => {
  it("a redelivery of a message that is running or done is not run again", async () => {
    const model = new ScriptedModel([], { whenExhausted: (request) => ({ text: `answer to ${lastUser(request)}`, delayMs: 50 }) });
    const harness = await service(model, sqliteUrl());
    const seen = shown(harness);
    await harness.service.start();
    const task = { origin: origin("dedupe"), text: "hello" };
    expect(await harness.service.submit(task, "C1:1.0001")).toMatchObject({ kind: "accepted" });
    expect(await harness.service.submit(task, "C1:1.0001")).toMatchObject({ kind: "duplicate", state: "in_progress" });
    await until(() => seen.length === 1, "the answer");
    await until(async () => (await harness.service.submit(task, "C1:1.0001")).kind === "duplicate", "the record to be done");
    expect(await harness.service.submit(task, "C1:1.0001")).toMatchObject({ kind: "duplicate", state: "done" });
    expect(model.requests).toHaveLength(1);
    expect(seen.map((item) => item.outcome)).toMatchObject([{ status: "answered", answer: "answer to hello" }]);
  });

  it("a message whose process died is taken up again by the next one, from its checkpoint", async () => {
    const storeUrl = sqliteUrl();
    const hanging = new ScriptedModel([call("calculator", { expression: "2+3" }, "c1")], { whenExhausted: { never: true } });
    const first = await service(hanging, storeUrl);
    shown(first);
    await first.service.start();
    const task = { origin: origin("retake"), text: "add it up" };
    await first.service.submit(task, "C1:2.0001");
    await until(() => hanging.requests.length === 2, "the second step to start");
    await first.service.close(20);

    const model = new ScriptedModel([say("It is 5.")]);
    const second = await service(model, storeUrl);
    const seen = shown(second);
    // A redelivery reaching the new process is taken up (once), not ignored.
    expect(await second.service.submit(task, "C1:2.0001")).toMatchObject({ kind: "accepted" });
    // The start's recovery queues it too: it still runs once.
    await second.service.start();
    await until(() => seen.length === 1, "the answer");
    expect(seen[0]!.outcome).toMatchObject({ status: "answered", answer: "It is 5." });
    expect(model.requests[0]!.messages.filter((message) => message.role === "tool").map((message) => message.content)).toEqual(["5"]);
    await second.service.close(1_000);
    expect(seen).toHaveLength(1);
  });
});

describe("checkpoints", () => {
  it("a checkpoint that fails to parse ends that run with a plain reply, and the others go on", async () => {
    const storeUrl = sqliteUrl();
    const hanging = new ScriptedModel([call("calculator", { expression: "1+1" }, "a1"), call("calculator", { expression: "2+2" }, "b1")], {
      whenExhausted: { never: true },
    });
    const first = await service(hanging, storeUrl);
    shown(first);
    await first.service.start();
    await first.service.submit({ origin: origin("bad"), text: "first" }, "bad-1");
    await first.service.submit({ origin: origin("good"), text: "second" }, "good-1");
    await until(() => hanging.requests.length === 4, "both runs to reach their second step");
    await first.service.close(20);
    await first.store.set(`checkpoint:${intakeIdFor("console", "bad-1")}:0`, { version: 0, messages: "altered" });

    const model = new ScriptedModel([], { whenExhausted: say("finished") });
    const second = await service(model, storeUrl);
    const seen = shown(second);
    await second.service.start();
    await until(() => seen.length === 2, "both conversations to get a reply");
    const byConversation = Object.fromEntries(seen.map((item) => [item.conversationKey, item.outcome]));
    expect(byConversation["console:bad"]).toMatchObject({
      status: "answered",
      answer: expect.stringContaining("its saved progress could not be read"),
    });
    expect(byConversation["console:good"]).toMatchObject({ status: "answered", answer: "finished" });
    expect(model.requests).toHaveLength(1);
  });
});

describe("the run slots", () => {
  it("never runs more than MAX_CONCURRENT_RUNS at once", async () => {
    let running = 0;
    let most = 0;
    const model = new ScriptedModel([], {
      whenExhausted: (): ScriptedReply => {
        running += 1;
        most = Math.max(most, running);
        setTimeout(() => (running -= 1), 40);
        return { text: "done", delayMs: 40 };
      },
    });
    const harness = await service(model, sqliteUrl(), { MAX_CONCURRENT_RUNS: "2" });
    const seen = shown(harness);
    await harness.service.start();
    for (let index = 0; index < 6; index++)
      await harness.service.submit({ origin: origin(`slot-${index}`), text: `q${index}` }, `slot-${index}`);
    await until(() => seen.length === 6, "all six answers");
    expect(most).toBe(2);
  });

  it("facts are extracted after the reply is shown, outside the run slot", async () => {
    let extractionStartedAt = 0;
    const model = new ScriptedModel([], {
      whenExhausted: (request): ScriptedReply => {
        if (request.responseFormat === "json_object") {
          extractionStartedAt ||= performance.now();
          return { text: JSON.stringify({ facts: ["The user likes tea."] }), delayMs: 400 };
        }
        return { text: `answer to ${lastUser(request)}` };
      },
    });
    const harness = await service(model, sqliteUrl(), { MAX_CONCURRENT_RUNS: "1", MEMORY_EXTRACT_FACTS: "true" });
    const seen = shown(harness);
    await harness.service.start();
    await harness.service.submit({ origin: origin("facts-a"), text: "I like tea" }, "facts-a");
    await harness.service.submit({ origin: origin("facts-b"), text: "other" }, "facts-b");
    await until(() => seen.length === 2, "both answers");
    expect(extractionStartedAt).toBeGreaterThan(seen[0]!.at);
    // B answered while A's extraction still waited on the model: the extraction held no slot.
    expect(seen[1]!.at).toBeLessThan(extractionStartedAt + 400);
    await until(async () => (await harness.service.memory.facts("console:facts-a")).length === 1, "the fact to be stored");
  });
});

describe("after the answer", () => {
  it("the history turn is retried while the store fails, not dropped", async () => {
    const { createAgentService } = await import("../../../src/runs/service/create-agent-service.js");
    const { loadConfig } = await import("../../../src/config.js");
    const { silentLogger } = await import("../../../src/logger.js");
    const { mapStore } = await import("../../support/map-store.js");
    const real = mapStore();
    let failures = 3;
    const flaky = {
      ...real,
      set: async (key: string, value: unknown, ttl?: number) =>
        key.startsWith("history:") && failures-- > 0 ? Promise.reject(new Error("store down")) : real.set(key, value, ttl),
    };
    const model = new ScriptedModel([], { whenExhausted: (request) => ({ text: `answer to ${lastUser(request)}` }) });
    const config = loadConfig({ STORE_URL: sqliteUrl(), MEMORY_EXTRACT_FACTS: "false" });
    const agent = createAgentService({ config, model, store: flaky, logger: silentLogger });
    await agent.start();
    await agent.ask({ origin: origin("flaky"), text: "first" }, () => {});
    await agent.ask({ origin: origin("flaky"), text: "second" }, () => {});
    expect(failures).toBeLessThan(0);
    expect(model.requests[1]!.messages.map((message) => message.content)).toEqual(expect.arrayContaining(["first", "answer to first"]));
    await agent.close(1_000);
  });
});

describe("a decision claimed but never applied (crash between the claim and the resume)", () => {
  it("is applied by the next start: the write runs once and the run answers", async () => {
    const { noteTool } = await import("../../support/service-harness.js");
    const storeUrl = sqliteUrl();
    const note = noteTool();
    const pausing = new ScriptedModel([call("post_note", { text: "hello" }, "w1")]);
    const first = await startService({ model: pausing, storeUrl, tools: [note.tool] });
    closeAfter(first);
    const paused = await first.service.ask({ origin: origin("stranded"), text: "post it" }, () => {});
    if (paused.status !== "paused") throw new Error(paused.status);
    await first.store.setIfAbsent(`approval:decision:${paused.runId}:${paused.pending.callId}`, {
      decision: "approve",
      decidedBy: { id: "alice" },
      at: Date.now(),
    });
    await first.service.close(100);

    const second = await startService({ model: new ScriptedModel([say("Posted it.")]), storeUrl, tools: [note.tool], start: false });
    closeAfter(second);
    const seen = shown(second, [note.tool]);
    await second.service.start();
    await until(() => seen.length === 1, "the resumed run's answer");
    expect(seen[0]!.outcome).toMatchObject({ status: "answered", answer: "Posted it." });
    expect(note.posted).toEqual(["hello"]);
    expect(
      await second.service.decide(
        { runId: paused.runId, callId: paused.pending.callId, decision: "approve", decidedBy: { id: "alice" } },
        () => {},
      ),
    ).toMatchObject({ kind: "already_decided" });
  });
});

describe("a write allowed by policy, interrupted while it ran", () => {
  it("is not run again; the model, the live trace and the final steps show its unknown outcome", async () => {
    const storeUrl = sqliteUrl();
    const posted: string[] = [];
    const hangingWrite = {
      ...(await import("../../support/service-harness.js")).noteTool().tool,
      execute: async ({ text }: { text: string }) => {
        posted.push(text);
        return new Promise<string>(() => {});
      },
    };
    const env = { TOOL_POLICY: "post_note=allow" };
    const first = await service(new ScriptedModel([call("post_note", { text: "standup moved" }, "w1")]), storeUrl, env);
    shown(first, [hangingWrite]);
    await first.service.start();
    await first.service.submit({ origin: origin("allowed-write"), text: "tell everyone" }, "allowed-1");
    await until(() => posted.length === 1, "the write to start");
    await first.service.close(20);

    const model = new ScriptedModel([say("I can't tell whether it was posted; please check.")]);
    const second = await service(model, storeUrl, env);
    const events: AgentEvent[] = [];
    const seen: RunOutcome[] = [];
    second.service.attach("console", {
      tools: [hangingWrite],
      present: (): RunPresenter => ({
        sink: (event) => events.push(event),
        async finish(outcome) {
          seen.push(outcome);
          return { messageId: "shown" };
        },
        fail: async () => {},
      }),
    });
    await second.service.start();
    await until(() => seen.length === 1, "the answer");
    expect(posted).toEqual(["standup moved"]);
    expect(seen[0]!.steps.flatMap((step) => step.calls)).toMatchObject([
      { callId: "w1", tool: "post_note", outcome: "error", observation: expect.stringContaining(UNKNOWN_OUTCOME) },
    ]);
    expect(events.filter((event) => event.type === "tool_result")).toMatchObject([{ call: { callId: "w1", outcome: "error" } }]);
    expect(model.requests[0]!.messages.filter((message) => message.role === "tool").map((message) => message.content)).toEqual([
      expect.stringContaining(UNKNOWN_OUTCOME),
    ]);
  });
});

describe("a write allowed by policy that finished, interrupted before its step was saved", () => {
  it("is put back with its result; the same write asked for again at once is not made again", async () => {
    const storeUrl = sqliteUrl();
    const note = (await import("../../support/service-harness.js")).noteTool();
    const hangingRead = {
      name: "slow_read",
      description: "reads slowly",
      schema: z.object({}),
      effect: "read" as const,
      execute: () => new Promise<string>(() => {}),
    };
    const env = { TOOL_POLICY: "post_note=allow" };
    const first = await service(
      new ScriptedModel([calls(call("post_note", { text: "pay 7" }, "w1"), call("slow_read", {}, "r1"))]),
      storeUrl,
      env,
    );
    shown(first, [note.tool, hangingRead]);
    await first.service.start();
    await first.service.submit({ origin: origin("allowed-done"), text: "pay invoice 7" }, "allowed-done-1");
    await until(() => note.posted.length === 1, "the write");
    await first.service.close(20);

    // A model that ignores what it is shown and asks for the same write again, under a new id.
    const model = new ScriptedModel([call("post_note", { text: "pay 7" }, "w2"), say("Paid once.")]);
    const second = await service(model, storeUrl, env);
    const seen = shown(second, [note.tool, hangingRead]);
    await second.service.start();
    await until(() => seen.length === 1, "the answer");
    expect(note.posted).toEqual(["pay 7"]);
    expect(model.requests[0]!.messages.filter((message) => message.role === "tool").map((message) => message.content)).toEqual([
      "posted: pay 7",
    ]);
    expect(seen[0]!.outcome.steps.flatMap((step) => step.calls)).toMatchObject([
      { callId: "w1", tool: "post_note", outcome: "ok", result: "posted: pay 7" },
      { tool: "post_note", outcome: "repeated" },
    ]);
  });
});

describe("a run's answer goes out once, also when its tail is replayed", () => {
  it("an approval record that could not be removed after the answer: the next start does not answer again", async () => {
    const { noteTool } = await import("../../support/service-harness.js");
    const storeUrl = sqliteUrl();
    const note = noteTool();
    const model = new ScriptedModel([call("post_note", { text: "hello" }, "w1"), say("Posted it.")], {
      whenExhausted: say("Posted it again."),
    });
    let failRemove = true;
    const first = await startService({
      model,
      storeUrl,
      tools: [note.tool],
      // The store fails as the finished run's approval record is removed.
      wrapStore: (real) => ({
        ...real,
        delete: async (key) => {
          if (failRemove && key.startsWith("approval:run:")) {
            failRemove = false;
            throw new Error("store blinked");
          }
          return real.delete(key);
        },
      }),
    });
    closeAfter(first);
    const firstSeen = shown(first);
    const paused = await first.service.ask({ origin: origin("replayed-approval"), text: "post hello" }, () => {});
    if (paused.status !== "paused") throw new Error(paused.status);
    await first.service.decide(
      { runId: paused.runId, callId: paused.pending.callId, decision: "approve", decidedBy: { id: "alice" } },
      () => {},
    );
    await until(() => firstSeen.length === 1, "the answer");
    // The record goes after the answer (so a crash in between leaves the run to answer): its removal comes next.
    await until(() => !failRemove, "the approval record's removal to fail");
    await first.service.close(1_000);

    const second = await startService({ model, storeUrl, tools: [note.tool], start: false });
    closeAfter(second);
    const secondSeen = shown(second);
    await second.service.start();
    await until(async () => (await second.store.get(`approval:run:${paused.runId}`)) === undefined, "the stale approval record to go");
    expect(firstSeen.map((seen) => seen.outcome)).toMatchObject([{ status: "answered", answer: "Posted it." }]);
    expect(secondSeen).toEqual([]);
    expect(note.posted).toEqual(["hello"]);
    expect(model.requests).toHaveLength(2);
  });

  it("a message that could not be marked done after its answer: the next start does not answer again", async () => {
    const storeUrl = sqliteUrl();
    const model = new ScriptedModel([], { whenExhausted: (request) => ({ text: `answer to ${lastUser(request)}` }) });
    const markDone = failingIntakeMark("done");
    const first = await startService({ model, storeUrl, wrapStore: markDone.wrapStore });
    closeAfter(first);
    const firstSeen = shown(first);
    await first.service.submit({ origin: origin("replayed-run"), text: "hi" }, "replayed-1");
    await until(() => firstSeen.length === 1, "the answer");
    expect(markDone.failuresLeft()).toBe(0);
    await first.service.close(1_000);

    const second = await startService({ model, storeUrl, start: false });
    closeAfter(second);
    const secondSeen = shown(second);
    await second.service.start();
    const id = intakeIdFor("console", "replayed-1");
    await until(async () => (await second.store.get(`intake:${id}`)) !== undefined, "the record");
    await until(
      async () => ((await second.store.get(`intake:${id}`)) as { state?: string } | undefined)?.state === "done",
      "the record to be marked done",
    );
    expect(secondSeen).toEqual([]);
    expect(model.requests).toHaveLength(1);
  });

  it("a store that blinks as the answer is marked (a Redis restart): the mark is written once it is back, and a replay answers nothing", async () => {
    const storeUrl = sqliteUrl();
    const model = new ScriptedModel([], { whenExhausted: (request) => ({ text: `answer to ${lastUser(request)}` }) });
    // The answer's mark and the record's "done" each fail twice, as during a Redis restart.
    const blinks = { mark: 2, done: 2 };
    const first = await startService({
      model,
      storeUrl,
      wrapStore: (real) => ({
        ...real,
        set: async (key, value, ttl) => {
          if (key.startsWith("answered:") && blinks.mark-- > 0) throw new Error("store blinked");
          if (key.startsWith("intake:") && (value as { state?: string }).state === "done" && blinks.done-- > 0)
            throw new Error("store blinked");
          return real.set(key, value, ttl);
        },
      }),
    });
    closeAfter(first);
    const firstSeen = shown(first);
    await first.service.submit({ origin: origin("blinked-mark"), text: "hi" }, "blinked-1");
    const id = intakeIdFor("console", "blinked-1");
    await until(
      async () => ((await first.store.get(`intake:${id}`)) as { state?: string } | undefined)?.state === "done",
      "the record to be marked done once the store is back",
    );
    expect(firstSeen).toHaveLength(1);
    await first.service.close(1_000);
    // Left running, as a crash before the "done" write leaves it: the next start replays the run's tail, and must find the mark.
    const done = await createIntakeStore(first.store).load(id);
    if (done.kind !== "found") throw new Error(done.kind);
    await createIntakeStore(first.store).update({ ...done.record, state: "running" });

    const second = await startService({ model, storeUrl, start: false });
    closeAfter(second);
    const secondSeen = shown(second);
    await second.service.start();
    await until(
      async () => ((await second.store.get(`intake:${id}`)) as { state?: string } | undefined)?.state === "done",
      "the replay to mark the record done",
    );
    expect(firstSeen.map((seen) => seen.outcome)).toMatchObject([{ status: "answered", answer: "answer to hi" }]);
    expect(secondSeen).toEqual([]);
    expect(model.requests).toHaveLength(1);
  });
});

describe("a store that blinks (a Redis restart) while a run starts or pauses", () => {
  it("a checkpoint and a ledger that can't be read for a moment: the run goes on from its checkpoint, no apology", async () => {
    const storeUrl = sqliteUrl();
    const hanging = new ScriptedModel([call("calculator", { expression: "2+3" }, "c1")], { whenExhausted: { never: true } });
    const first = await service(hanging, storeUrl);
    shown(first);
    await first.service.start();
    await first.service.submit({ origin: origin("blinked-start"), text: "add it up" }, "C1:12.0001");
    await until(() => hanging.requests.length === 2, "the second step to start");
    await first.service.close(20);

    const blinks = { checkpoint: 1, ledger: 2 };
    const model = new ScriptedModel([say("It is 5.")]);
    const second = await startService({
      model,
      storeUrl,
      start: false,
      wrapStore: (real) => ({
        ...real,
        get: async (key) => {
          if (key.startsWith("checkpoint:") && blinks.checkpoint > 0 && blinks.checkpoint--) throw new Error("store blinked");
          return real.get(key);
        },
        setMembers: async (key) => {
          if (key.startsWith("write:calls:") && blinks.ledger > 0 && blinks.ledger--) throw new Error("store blinked");
          return real.setMembers(key);
        },
      }),
    });
    closeAfter(second);
    const seen: RunOutcome[] = [];
    const failures: unknown[] = [];
    second.service.attach("console", {
      tools: [],
      present: () => ({
        sink: () => {},
        finish: async (outcome) => void seen.push(outcome),
        fail: async (error) => void failures.push(error),
      }),
    });
    await second.service.start();
    await until(() => seen.length === 1, "the answer", 10_000);
    expect({ blinks, failures }).toEqual({ blinks: { checkpoint: 0, ledger: 0 }, failures: [] });
    expect(seen[0]).toMatchObject({ status: "answered", answer: "It is 5." });
    expect(model.requests[0]!.messages.filter((message) => message.role === "tool").map((message) => message.content)).toEqual(["5"]);
  });

  it("a paused run that can't be saved for a moment: the request is saved once the store is back, and waits for a person", async () => {
    const { noteTool } = await import("../../support/service-harness.js");
    const note = noteTool();
    let blinks = 2;
    const harness = await startService({
      model: new ScriptedModel([call("post_note", { text: "hello" }, "w1"), say("Posted it.")]),
      storeUrl: sqliteUrl(),
      tools: [note.tool],
      wrapStore: (real) => ({
        ...real,
        set: async (key, value, ttl) => {
          if (key.startsWith("approval:run:") && blinks-- > 0) throw new Error("store blinked");
          return real.set(key, value, ttl);
        },
      }),
    });
    closeAfter(harness);
    const outcome = await harness.service.ask({ origin: origin("blinked-pause"), text: "post hello" }, () => {});
    expect(blinks).toBe(-1);
    expect(outcome).toMatchObject({ status: "paused", pending: { tool: "post_note" } });
    expect(note.posted).toEqual([]);
  });
});

describe("a message whose run paused for approval, taken up again (its record left running)", () => {
  /** With `docs`, the run waits for its requester to connect docs instead of for a decision. */
  async function pausedThenReplayed(forgetCard: boolean, docs?: ConnectStandIn) {
    const { noteTool } = await import("../../support/service-harness.js");
    const note = noteTool();
    const storeUrl = sqliteUrl();
    const model = new ScriptedModel([], { whenExhausted: docs ? call("docs__whoami", {}) : call("post_note", { text: "hello" }) });
    const first = await service(model, storeUrl, {}, docs);
    const firstSeen = shown(first, [note.tool, ...(docs?.tools ?? [])]);
    await first.service.start();
    await first.service.submit({ origin: origin("paused-replay"), text: "post hello" }, "C1:13.0001");
    const id = intakeIdFor("console", "C1:13.0001");
    await until(async () => ((await first.store.get(`intake:${id}`)) as { state?: string } | undefined)?.state === "done", "the pause");
    await first.service.close(1_000);
    // As a crash before the "done" write leaves it (and, with forgetCard, one before the card was shown).
    const done = await createIntakeStore(first.store).load(id);
    if (done.kind !== "found") throw new Error(done.kind);
    await createIntakeStore(first.store).update({ ...done.record, state: "running" });
    const pending = firstSeen[0]!.outcome;
    if (pending.status !== "paused") throw new Error(pending.status);
    if (forgetCard) await first.store.delete(`answered:${id}:card:${pending.pending.callId}`);

    const second = await service(model, storeUrl, {}, docs);
    const secondSeen = shown(second, [note.tool, ...(docs?.tools ?? [])]);
    await second.service.start();
    await until(async () => ((await second.store.get(`intake:${id}`)) as { state?: string } | undefined)?.state === "done", "the replay");
    return { firstSeen, secondSeen, model, note, callId: pending.pending.callId };
  }

  it("its card was shown: nothing is run or shown again, and the request still waits", async () => {
    const { firstSeen, secondSeen, model, note } = await pausedThenReplayed(false);
    expect(firstSeen.map((seen) => seen.outcome.status)).toEqual(["paused"]);
    expect(secondSeen).toEqual([]);
    expect(model.requests).toHaveLength(1);
    expect(note.posted).toEqual([]);
  });

  it("its card was not shown: the same request's card is shown, and the model is not asked again", async () => {
    const { secondSeen, model, callId } = await pausedThenReplayed(true);
    expect(secondSeen.map((seen) => seen.outcome)).toMatchObject([{ status: "paused", pending: { callId, tool: "post_note" } }]);
    expect(model.requests).toHaveLength(1);
  });

  it("waiting for a connection, its card not shown: shown with a Connect link made anew, since the record keeps none", async () => {
    const docs = connectStandIn();
    const { firstSeen, secondSeen, model, callId } = await pausedThenReplayed(true, docs);
    const url = `${CONNECT_BASE}?state=${intakeIdFor("console", "C1:13.0001")}`;
    expect(firstSeen.map((seen) => seen.outcome)).toMatchObject([{ status: "paused", pending: { connect: { server: "docs", url } } }]);
    expect(secondSeen.map((seen) => seen.outcome)).toMatchObject([
      { status: "paused", pending: { callId, tool: "docs__whoami", connect: { server: "docs", url } } },
    ]);
    expect(docs.pending).toHaveLength(2);
    expect(model.requests).toHaveLength(1);
  });
});

describe("a run that failed in this process", () => {
  it("is tried again with backoff, and does not block a redelivery meanwhile: answered once", async () => {
    const model = new ScriptedModel([], { whenExhausted: (request) => ({ text: `answer to ${lastUser(request)}` }) });
    // The store fails just as the worker marks the message running: the handler rejects.
    const markRunning = failingIntakeMark("running");
    const harness = await startService({ model, storeUrl: sqliteUrl(), wrapStore: markRunning.wrapStore });
    closeAfter(harness);
    const seen = shown(harness);
    const task = { origin: origin("failed-run"), text: "hello" };
    expect(await harness.service.submit(task, "C1:9.0001")).toMatchObject({ kind: "accepted" });
    await until(() => markRunning.failuresLeft() === 0, "the failure");
    await until(async () => (await harness.service.submit(task, "C1:9.0001")).kind === "accepted", "the redelivery to be taken up");
    await until(() => seen.length === 1, "the answer");
    expect(seen[0]!.outcome).toMatchObject({ status: "answered", answer: "answer to hello" });
    expect(await harness.service.submit(task, "C1:9.0001")).toMatchObject({ kind: "duplicate" });
    expect(model.requests).toHaveLength(1);
  });
});

describe("a run whose store failed under it", () => {
  it("is tried again with backoff until the store is back, without a redelivery", async () => {
    const model = new ScriptedModel([], { whenExhausted: (request) => ({ text: `answer to ${lastUser(request)}` }) });
    const markRunning = failingIntakeMark("running", 3);
    const harness = await startService({ model, storeUrl: sqliteUrl(), wrapStore: markRunning.wrapStore });
    closeAfter(harness);
    const seen = shown(harness);
    await harness.service.submit({ origin: origin("store-down"), text: "hello" }, "C1:10.0001");
    await until(() => seen.length === 1, "the answer", 10_000);
    expect(markRunning.failuresLeft()).toBe(0);
    expect(seen[0]!.outcome).toMatchObject({ status: "answered", answer: "answer to hello" });
  });
});
