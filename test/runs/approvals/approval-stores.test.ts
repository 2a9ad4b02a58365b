// Write calls that wait for a person, against what the store and the process do: a changed
// TOOL_POLICY, a store that fails, a restart between pause and click, 100 concurrent clicks on
// SQLite and Redis, and how long approval records live.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { call, say, ScriptedModel } from "../../support/model-scripted.js";
import { createLocalWorkQueue } from "../../../src/runs/queue/local-work-queue.js";
import { failingResumes } from "../../support/failing-queue.js";
import { until } from "../../support/until.js";
import { silentLogger } from "../../../src/logger.js";
import type { KeyValueStore } from "../../../src/memory/types.js";
import {
  aliceDecides,
  answerOf,
  harness,
  nextId,
  closeNow,
  pendingOf,
  redisUrl,
  sqliteUrl,
  useApprovalStores,
  writeThenAnswer,
} from "../../support/approval-harness.js";
import { redisAvailable } from "../../support/redis-suite.js";
import { noteTool, originFor } from "../../support/service-harness.js";
import { supportPath } from "../../support/repo-paths.js";
import { recordingConsole } from "../../support/recording-console.js";

const run = promisify(execFile);

useApprovalStores();

describe("a write call waits for a person: policy, store faults, restarts", () => {
  it("TOOL_POLICY can deny or allow a write tool", async () => {
    const note = noteTool();
    const model = new ScriptedModel([call("post_note", { text: "x" }), say("It is not allowed here.")]);
    const denied = await harness(model, { tools: [note.tool], env: { TOOL_POLICY: "post_*=deny" } });
    const outcome = await denied.service.ask({ origin: originFor(), text: "post" }, denied.sink);
    expect(outcome).toMatchObject({ status: "answered", answer: "It is not allowed here." });
    expect(note.posted).toEqual([]);

    const allowedNote = noteTool();
    const allowed = await harness(new ScriptedModel([call("post_note", { text: "y" }), say("Posted.")]), {
      tools: [allowedNote.tool],
      env: { TOOL_POLICY: "post_note=allow" },
    });
    await allowed.service.ask({ origin: originFor(), text: "post" }, allowed.sink);
    expect(allowedNote.posted).toEqual(["y"]);
  });

  it("a store that fails to clear the finished request still gives the resumed answer", async () => {
    const note = noteTool();
    // The real store's operations are plain functions over it, so a copy of the object keeps them.
    const failingClear = (store: KeyValueStore): KeyValueStore => ({
      ...store,
      delete: async (key) => {
        if (key.startsWith("approval:run:")) throw new Error("store went away");
        return store.delete(key);
      },
    });
    const { service } = await harness(new ScriptedModel(writeThenAnswer("Done")), { tools: [note.tool], wrapStore: failingClear });
    const pending = pendingOf(await service.ask({ origin: originFor(), text: "post hello" }, () => {}));
    const result = await aliceDecides(service, pending, "approve");
    expect(answerOf(result)).toBe("Done (posted: hello team)");
    expect(note.posted).toEqual(["hello team"]);
  });

  it("a store that blinks as the resumed run ends (a Redis restart) still gives the answer, with no apology", async () => {
    const note = noteTool();
    let blinking = false;
    // Everything read from the store fails from the moment the model has written the answer, until it is shown.
    const blinkAfterTheRun = (store: KeyValueStore): KeyValueStore => ({
      ...store,
      get: async (key) => {
        if (blinking) throw new Error("store went away");
        return store.get(key);
      },
    });
    const model = new ScriptedModel([
      call("post_note", { text: "hello team" }),
      () => {
        blinking = true;
        return say("Done");
      },
    ]);
    const { service } = await harness(model, { tools: [note.tool], wrapStore: blinkAfterTheRun });
    const pending = pendingOf(await service.ask({ origin: originFor(), text: "post hello" }, () => {}));
    const result = await aliceDecides(service, pending, "approve");
    blinking = false;
    expect(answerOf(result)).toBe("Done");
    expect(note.posted).toEqual(["hello team"]);
  });

  it("a decision whose resume can't be queued at once is queued when the queue is back, and runs once", async () => {
    const note = noteTool();
    const queue = failingResumes(createLocalWorkQueue(silentLogger), 2);
    const { service } = await harness(new ScriptedModel(writeThenAnswer("Done")), { tools: [note.tool], queue });
    const pending = pendingOf(await service.ask({ origin: originFor(), text: "post hello" }, () => {}));
    const result = await aliceDecides(service, pending, "approve");
    expect(queue.refused).toBe(2);
    expect(answerOf(result)).toBe("Done (posted: hello team)");
    expect(note.posted).toEqual(["hello team"]);
  });

  it("a decision whose resume stays unqueued: the clicker is told it is recorded and goes on by itself; it does when the queue is back", async () => {
    const note = noteTool();
    const queue = failingResumes(createLocalWorkQueue(silentLogger), 6);
    const { service } = await harness(new ScriptedModel(writeThenAnswer("Done")), { tools: [note.tool], queue });
    const { hooks, shown } = recordingConsole([note.tool]);
    const pending = pendingOf(await service.ask({ origin: originFor(), text: "post hello" }, () => {}));
    // From here a surface's presenter shows the run (as on Slack and Discord): the click does not wait for it.
    service.attach("console", hooks);
    const result = await aliceDecides(service, pending, "approve");
    expect(result).toMatchObject({ kind: "resumed", decision: "approve", note: expect.stringContaining("recorded") });
    expect(result.kind === "resumed" && result.note).toMatch(/no need to click again/);
    expect(shown).toEqual([]);
    await until(() => shown.length === 1, "the run to go on once the queue is back", 20_000);
    expect(queue.refused).toBe(6);
    expect(shown[0]).toMatchObject({ status: "answered", answer: "Done (posted: hello team)" });
    expect(note.posted).toEqual(["hello team"]);
    expect(await aliceDecides(service, pending, "approve")).toMatchObject({ kind: "already_decided" });
  });

  it("a tool denied by a new TOOL_POLICY after a restart can no longer be approved", async () => {
    const storeUrl = sqliteUrl();
    const note = noteTool();
    const first = await harness(new ScriptedModel([call("post_note", { text: "x" })]), { tools: [note.tool], storeUrl });
    const pending = pendingOf(await first.service.ask({ origin: originFor(), text: "post" }, first.sink));
    await closeNow(first);
    const model = new ScriptedModel([say("Not allowed any more.")]);
    const second = await harness(model, { tools: [note.tool], storeUrl, env: { TOOL_POLICY: "post_note=deny" } });
    const result = await aliceDecides(second.service, pending, "approve", second.sink);
    expect(answerOf(result)).toBe("Not allowed any more.");
    expect(note.posted).toEqual([]);
    expect(model.requests[0]!.messages.at(-1)?.content).toMatch(/not allowed by this bot's tool policy/);
  });

  it("an expired write shows in the steps as not run", async () => {
    let now = 2_000_000;
    const note = noteTool();
    const model = new ScriptedModel([call("post_note", { text: "late" }), say("Expired.")]);
    const { service, sink } = await harness(model, { tools: [note.tool], clock: () => now, env: { APPROVAL_TIMEOUT_MS: "60000" } });
    const pending = pendingOf(await service.ask({ origin: originFor(), text: "post late" }, sink));
    now += 60_001;
    const result = await aliceDecides(service, pending, "approve", sink);
    if (result.kind !== "expired" || !result.outcome) throw new Error(result.kind);
    const calls = result.outcome.steps.flatMap((step) => step.calls);
    expect(calls.map((item) => [item.tool, item.outcome])).toEqual([["post_note", "blocked"]]);
    expect(calls[0]!.observation).toMatch(/nobody approved it in time/);
  });

  it("a pause that cannot be saved says the write did not run", async () => {
    const note = noteTool();
    const model = new ScriptedModel([call("calculator", { expression: "1+1" }), call("post_note", { text: "x" })]);
    const { service, sink, store } = await harness(model, { tools: [note.tool] });
    const realSet = store.set.bind(store);
    store.set = async (key, value, ttl) => {
      if (key.startsWith("approval:run:")) throw new Error("disk full");
      return realSet(key, value, ttl);
    };
    const outcome = await service.ask({ origin: originFor(), text: "add then post" }, sink);
    expect(outcome).toMatchObject({ status: "answered", stop: { guard: "store_unavailable" } });
    if (outcome.status !== "answered") return;
    expect(outcome.answer).toMatch(/so post_note did not run/);
    expect(outcome.answer).not.toMatch(/Nothing was run/);
    expect(note.posted).toEqual([]);
  });

  it("restart: pause in one process, approve in a new process on the same store", async () => {
    const storeUrl = sqliteUrl();
    const note = noteTool();
    const first = await harness(new ScriptedModel([call("post_note", { text: "after restart" })]), { tools: [note.tool], storeUrl });
    const pending = pendingOf(await first.service.ask({ origin: originFor(), text: "post" }, first.sink));
    await closeNow(first);
    const script = supportPath("approve-process.ts");
    const { stdout } = await run(process.execPath, ["--import", "tsx", script, storeUrl, pending.runId, pending.callId], {
      timeout: 20_000,
    });
    expect(JSON.parse(stdout)).toEqual({ kind: "resumed", posted: ["after restart"], answer: "Posted it." });
    expect(note.posted).toEqual([]);
  });
});

const clickStores: Array<[string, () => string]> = [["SQLite", () => sqliteUrl()]];
if (redisAvailable) clickStores.push(["Redis", () => redisUrl()]);
describe.each(clickStores)("100 concurrent clicks on one call (%s)", (_name, url) => {
  it("run the tool exactly once", async () => {
    const note = noteTool();
    const model = new ScriptedModel([call("post_note", { text: "once" })], { whenExhausted: say("Posted once.") });
    const { service, sink } = await harness(model, { tools: [note.tool], storeUrl: url() });
    const pending = pendingOf(await service.ask({ origin: originFor("alice", `console:clicks-${nextId()}`), text: "post" }, sink));
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, index) =>
        service.decide(
          {
            runId: pending.runId,
            callId: pending.callId,
            decision: index % 2 === 0 ? "approve" : "deny",
            decidedBy: { id: "alice" },
          },
          sink,
        ),
      ),
    );
    const winners = results.filter((result) => result.kind === "resumed");
    expect(winners).toHaveLength(1);
    expect(results.filter((result) => result.kind === "already_decided")).toHaveLength(99);
    expect(note.posted).toEqual(winners[0]!.kind === "resumed" && winners[0]!.decision === "approve" ? ["once"] : []);
  });
});

describe("how long approval records live in the store", () => {
  it("a paused run lives its approval window plus an hour's grace; a decision is remembered a day", async () => {
    const now = 7_000_000;
    const ttls = new Map<string, number | undefined>();
    const note = noteTool();
    const model = new ScriptedModel([call("post_note", { text: "ttl" })], { whenExhausted: say("Posted.") });
    const { service, sink } = await harness(model, {
      tools: [note.tool],
      clock: () => now,
      env: { APPROVAL_TIMEOUT_MS: "60000" },
      wrapStore: recordingTtls(ttls),
    });
    const pending = pendingOf(await service.ask({ origin: originFor("alice", "console:ttl"), text: "post" }, sink));
    expect(ttls.get(`approval:run:${pending.runId}`)).toBe(60_000 + 60 * 60_000);
    await aliceDecides(service, pending, "approve", sink);
    expect(ttls.get(`approval:decision:${pending.runId}:${pending.callId}`)).toBe(24 * 60 * 60_000);
  });
});

/** Passes every call through, noting the TTL each key was last written with. */
function recordingTtls(ttls: Map<string, number | undefined>): (store: KeyValueStore) => KeyValueStore {
  return (store) =>
    new Proxy(store, {
      get(target, name, receiver) {
        const value: unknown = Reflect.get(target, name, receiver);
        if (name !== "set" && name !== "setIfAbsent") return typeof value === "function" ? value.bind(target) : value;
        return (key: string, stored: unknown, ttl?: number) => {
          ttls.set(key, ttl);
          return (value as KeyValueStore["set"]).call(target, key, stored, ttl);
        };
      },
    });
}
