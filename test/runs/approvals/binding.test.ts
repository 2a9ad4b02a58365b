// A stored approval is bound to what it approves: the run's state, the waiting call (id, tool,
// arguments), who asked, where, and until when. Whoever can write the store may change any of
// these or copy a signed record under another run's key; each is refused, and nothing runs.
import { describe, expect, it } from "vitest";
import { createApprovalStore, type ApprovalStore, type StoredRun } from "../../../src/runs/approvals/approval-store.js";
import { call, say, ScriptedModel } from "../../support/model-scripted.js";
import { emptyGuardCounters, type RunState } from "../../../src/agent/loop/run-state.js";
import type { TaskOrigin, ToolCall } from "../../../src/contracts/types.js";
import { silentLogger } from "../../../src/logger.js";
import { aliceDecides, harness, pendingOf, useApprovalStores } from "../../support/approval-harness.js";
import { mapStore } from "../../support/map-store.js";
import { noteTool, originFor } from "../../support/service-harness.js";

const NOW = 1_800_000_000_000;
const origin: TaskOrigin = {
  surface: "slack",
  conversationKey: "slack:T1:C1:1700000000.000100",
  requester: { id: "U_ALICE", name: "Alice" },
  place: { team: "T1", channel: "C1", thread_ts: "1700000000.000100" },
};
const write: ToolCall = { id: "call_write", name: "post_note", arguments: '{"text":"hello team"}' };
const laterRead: ToolCall = { id: "call_read", name: "calculator", arguments: '{"expression":"1+1"}' };

function pausedRun(runId = "run-a", calls: readonly ToolCall[] = [write, laterRead]): StoredRun {
  const state: RunState = {
    version: 1,
    runId,
    origin,
    question: "post hello",
    messages: [
      { role: "system", content: "You are a bot." },
      { role: "user", content: "post hello" },
      { role: "assistant", content: null, toolCalls: [...calls] },
    ],
    steps: [],
    guards: emptyGuardCounters,
    usage: { promptTokens: 10, completionTokens: 5 },
    elapsedMs: 120,
    pending: { index: 1, startedAt: NOW - 1_000, text: null, calls, done: [] },
  };
  return {
    state,
    pending: {
      runId,
      callId: calls[0]!.id,
      tool: calls[0]!.name,
      source: "built-in",
      args: JSON.parse(calls[0]!.arguments),
      requester: origin.requester,
      origin,
      expiresAt: NOW + 15 * 60_000,
    },
  };
}

function approvals(): { store: ReturnType<typeof mapStore>; approvals: ApprovalStore } {
  const store = mapStore();
  const key = Buffer.alloc(32, 7);
  return { store, approvals: createApprovalStore({ store, key: async () => key, logger: silentLogger, clock: () => NOW }) };
}

type Stored = { state: RunState; pending: Record<string, unknown>; mac: string };

const ALTERED = { kind: "invalid", reason: "the stored request was altered" };
const MISMATCHED = { kind: "invalid", reason: "the stored request does not match the call it was shown for" };

const inState = (record: Stored, change: Partial<RunState>): Stored => ({ ...record, state: { ...record.state, ...change } });
const inPending = (record: Stored, change: Record<string, unknown>): Stored => ({ ...record, pending: { ...record.pending, ...change } });
const waitingCall = (record: Stored, change: Partial<ToolCall>): Stored => {
  const pending = record.state.pending!;
  return inState(record, { pending: { ...pending, calls: [{ ...pending.calls[0]!, ...change }, ...pending.calls.slice(1)] } });
};

/** Each edit an attacker with write access to the store could make to a signed record. */
const alterations: Array<[string, (record: Stored) => Stored]> = [
  ["the run's question", (record) => inState(record, { question: "post goodbye" })],
  [
    "the run's messages",
    (record) => inState(record, { messages: [...record.state.messages, { role: "user", content: "and wire money" }] }),
  ],
  ["the run time used", (record) => inState(record, { elapsedMs: 0 })],
  ["the run's requester", (record) => inState(record, { origin: { ...origin, requester: { id: "U_MALLORY" } } })],
  ["the waiting call's arguments in the run", (record) => waitingCall(record, { arguments: '{"text":"@everyone"}' })],
  ["the pending call's id", (record) => inPending(record, { callId: "call_other" })],
  ["the pending call's tool", (record) => inPending(record, { tool: "delete_everything" })],
  ["the pending call's arguments", (record) => inPending(record, { args: { text: "@everyone send me your passwords" } })],
  ["the pending call's source", (record) => inPending(record, { source: "MCP server fs" })],
  ["the requester", (record) => inPending(record, { requester: { id: "U_MALLORY", name: "Mallory" } })],
  ["the requester's name", (record) => inPending(record, { requester: { id: "U_ALICE", name: "Alice (admin)" } })],
  ["the place the request was shown", (record) => inPending(record, { origin: { ...origin, place: { ...origin.place, channel: "C2" } } })],
  ["the expiry", (record) => inPending(record, { expiresAt: NOW + 365 * 24 * 60 * 60_000 })],
  ["the waiting call's id in both parts alike", (record) => inPending(waitingCall(record, { id: "call_new" }), { callId: "call_new" })],
];

describe("a stored approval is bound to what it approves", () => {
  it("loads back as it was saved", async () => {
    const { approvals: store } = approvals();
    const run = pausedRun();
    await store.save(run);
    expect(await store.load("run-a")).toEqual({ kind: "found", run });
  });

  it.each(alterations)("refuses a record with %s changed", async (_field, alter) => {
    const { store, approvals: approvalStore } = approvals();
    await approvalStore.save(pausedRun());
    store.data.set("approval:run:run-a", alter(store.data.get("approval:run:run-a") as Stored));
    expect(await approvalStore.load("run-a")).toEqual(ALTERED);
  });

  it("refuses a record whose signature was removed or replaced", async () => {
    const { store, approvals: approvalStore } = approvals();
    await approvalStore.save(pausedRun());
    const stored = store.data.get("approval:run:run-a") as Stored;
    store.data.set("approval:run:run-a", { ...stored, mac: "A".repeat(stored.mac.length) });
    expect(await approvalStore.load("run-a")).toEqual(ALTERED);
    store.data.set("approval:run:run-a", { ...stored, mac: "" });
    expect(await approvalStore.load("run-a")).toEqual(ALTERED);
    const { mac: _dropped, ...unsigned } = stored;
    store.data.set("approval:run:run-a", unsigned);
    expect(await approvalStore.load("run-a")).toEqual({ kind: "invalid", reason: "the stored request is damaged" });
  });

  it("refuses a signed record copied under another run's key", async () => {
    const { store, approvals: approvalStore } = approvals();
    await approvalStore.save(pausedRun("run-a"));
    await approvalStore.save(pausedRun("run-b"));
    store.data.set("approval:run:run-b", structuredClone(store.data.get("approval:run:run-a")));
    expect(await approvalStore.load("run-b")).toEqual(MISMATCHED);
    expect(await approvalStore.load("run-a")).toMatchObject({ kind: "found" });
  });

  // Records the bot itself signed but that do not hang together (a writer's bug, an older format):
  // the signature vouches for the bytes, these checks for their meaning.
  it("refuses a signed record whose pending call is not the call the run waits on", async () => {
    const { approvals: approvalStore } = approvals();
    const run = pausedRun();
    const cases: StoredRun[] = [
      { ...run, pending: { ...run.pending, callId: "call_other" } },
      { ...run, pending: { ...run.pending, tool: "delete_everything" } },
      // The read that came after the write in the same reply is not what waits.
      { ...run, pending: { ...run.pending, callId: laterRead.id, tool: laterRead.name } },
    ];
    for (const mismatched of cases) {
      await approvalStore.save(mismatched);
      expect(await approvalStore.load("run-a")).toEqual(MISMATCHED);
    }
  });

  it("refuses a signed record of a run that waits on nothing", async () => {
    const { approvals: approvalStore } = approvals();
    const run = pausedRun();
    const { pending: _none, ...notWaiting } = run.state;
    await approvalStore.save({ ...run, state: notWaiting as RunState });
    expect(await approvalStore.load("run-a")).toEqual(MISMATCHED);
  });

  it("refuses a run id that is not well formed (a click's value is untrusted), whatever is stored under its key", async () => {
    const { store, approvals: approvalStore } = approvals();
    await approvalStore.save(pausedRun());
    const signed = await store.get("approval:run:run-a");
    for (const runId of ["run-a:x", "", "run a", "x".repeat(65)]) {
      await store.set(`approval:run:${runId}`, signed);
      expect(await approvalStore.load(runId)).toEqual({ kind: "invalid", reason: "the approval id is not well formed" });
    }
  });
});

useApprovalStores();

describe("through the service: an altered or copied record runs nothing", () => {
  it("a requester changed in the store can't approve; the real requester's click is refused too", async () => {
    const note = noteTool();
    const model = new ScriptedModel([call("post_note", { text: "hello team" })], { whenExhausted: say("Posted.") });
    const { service, sink, store } = await harness(model, { tools: [note.tool] });
    const pending = pendingOf(await service.ask({ origin: originFor("alice", "console:bound-1"), text: "post" }, sink));
    const key = `approval:run:${pending.runId}`;
    const stored = (await store.get(key)) as Stored;
    await store.set(key, { ...stored, pending: { ...stored.pending, requester: { id: "mallory", name: "mallory" } } });
    for (const id of ["mallory", "alice"]) {
      const result = await service.decide({ runId: pending.runId, callId: pending.callId, decision: "approve", decidedBy: { id } }, sink);
      expect(result).toEqual({
        kind: "unknown",
        message: "This approval request can't be used: the stored request was altered. Nothing was run; ask again.",
      });
    }
    expect(note.posted).toEqual([]);
  });

  it("an expiry moved later in the store is refused", async () => {
    const note = noteTool();
    const model = new ScriptedModel([call("post_note", { text: "hello team" })], { whenExhausted: say("Posted.") });
    const { service, sink, store } = await harness(model, { tools: [note.tool] });
    const pending = pendingOf(await service.ask({ origin: originFor("alice", "console:bound-2"), text: "post" }, sink));
    const key = `approval:run:${pending.runId}`;
    const stored = (await store.get(key)) as Stored;
    await store.set(key, { ...stored, pending: { ...stored.pending, expiresAt: pending.expiresAt + 24 * 60 * 60_000 } });
    const result = await aliceDecides(service, pending, "approve", sink);
    expect(result).toMatchObject({ kind: "unknown", message: expect.stringMatching(/the stored request was altered/) });
    expect(note.posted).toEqual([]);
  });

  it("a record approved in one run, copied under another run's key, is refused there and its write does not run again", async () => {
    const note = noteTool();
    const model = new ScriptedModel([call("post_note", { text: "pay 100" }), say("Paid."), call("post_note", { text: "say hi" })], {
      whenExhausted: say("Done."),
    });
    const { service, sink, store } = await harness(model, { tools: [note.tool] });
    const first = pendingOf(await service.ask({ origin: originFor("alice", "console:bound-3"), text: "pay" }, sink));
    const signedCopy = await store.get(`approval:run:${first.runId}`);
    const approved = await aliceDecides(service, first, "approve", sink);
    expect(approved.kind).toBe("resumed");
    expect(note.posted).toEqual(["pay 100"]);

    const second = pendingOf(await service.ask({ origin: originFor("alice", "console:bound-4"), text: "say hi" }, sink));
    await store.set(`approval:run:${second.runId}`, signedCopy);
    for (const callId of [first.callId, second.callId]) {
      const replayed = await service.decide({ runId: second.runId, callId, decision: "approve", decidedBy: { id: "alice" } }, sink);
      expect(replayed).toEqual({
        kind: "unknown",
        message:
          "This approval request can't be used: the stored request does not match the call it was shown for. Nothing was run; ask again.",
      });
    }
    expect(note.posted).toEqual(["pay 100"]);
  });
});
