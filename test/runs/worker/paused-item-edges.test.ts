// A paused run's expiry item against what the store holds when it is handled: a record gone or
// altered (dropped with its listing, nothing run), a due listing for a run whose own window is
// still open (put off, never expired early), a run handled at exactly its expiry, and a resumed
// run that answered no longer watched for a Stop.
import { describe, expect, it } from "vitest";
import { call, calls, say, ScriptedModel } from "../../support/model-scripted.js";
import type { PendingApproval } from "../../../src/contracts/types.js";
import { harness, pendingOf, useApprovalStores } from "../../support/approval-harness.js";
import { until } from "../../support/until.js";
import { noteTool, originFor } from "../../support/service-harness.js";
import { recordingConsole } from "../../support/recording-console.js";

useApprovalStores();

const WINDOW_MS = 60_000;

async function paused(now: { value: number }) {
  const note = noteTool();
  const expired: PendingApproval[] = [];
  const started = await harness(new ScriptedModel([call("post_note", { text: "late" })], { whenExhausted: say("Posted.") }), {
    tools: [note.tool],
    clock: () => now.value,
    env: { APPROVAL_TIMEOUT_MS: String(WINDOW_MS) },
    expired: (pending) => expired.push(pending),
  });
  const pending = pendingOf(await started.service.ask({ origin: originFor(), text: "post late" }, started.sink));
  return { ...started, note, expired, pending };
}

const listed = async (store: { setMembers(key: string): Promise<string[]> }, runId: string) =>
  (await store.setMembers("approval:waiting")).filter((member) => member.includes(runId));

describe("a paused run's expiry or resume item", () => {
  it("for a run whose record is gone takes its listing away and ends nothing", async () => {
    const now = { value: 7_000_000 };
    const { service, store, expired, pending, note } = await paused(now);
    await store.delete(`approval:run:${pending.runId}`);
    now.value += WINDOW_MS + 1;
    expect(await service.sweepExpiredApprovals()).toBe(0);
    expect(await listed(store, pending.runId)).toEqual([]);
    expect(expired).toEqual([]);
    expect(note.posted).toEqual([]);
  });

  it("for a run whose record was altered drops the record and its listing; nothing runs", async () => {
    const now = { value: 7_000_000 };
    const { service, store, expired, pending, note } = await paused(now);
    const key = `approval:run:${pending.runId}`;
    const stored = (await store.get(key)) as { pending: { args: unknown } };
    await store.set(key, { ...stored, pending: { ...stored.pending, args: { text: "@everyone" } } });
    now.value += WINDOW_MS + 1;
    expect(await service.sweepExpiredApprovals()).toBe(0);
    expect(await store.get(key)).toBeUndefined();
    expect(await listed(store, pending.runId)).toEqual([]);
    expect(expired).toEqual([]);
    expect(note.posted).toEqual([]);
  });

  it("listed as due while its own window is still open is put off: the run waits and can still be approved", async () => {
    const now = { value: 7_000_000 };
    const { service, store, sink, expired, pending, note } = await paused(now);
    // As an entry written by another process (or a clock ahead of this one) could say.
    await store.addToSet(
      "approval:waiting",
      JSON.stringify({ runId: pending.runId, callId: pending.callId, expiresAt: now.value - 1, surface: "console" }),
    );
    expect(await service.sweepExpiredApprovals()).toBe(0);
    expect(expired).toEqual([]);
    const result = await service.decide(
      { runId: pending.runId, callId: pending.callId, decision: "approve", decidedBy: { id: "alice" } },
      sink,
    );
    expect(result.kind).toBe("resumed");
    expect(note.posted).toEqual(["late"]);
  });

  it("handled at exactly its expiry time ends the run as expired", async () => {
    const now = { value: 7_000_000 };
    const { service, expired, pending, note } = await paused(now);
    now.value = pending.expiresAt;
    expect(await service.sweepExpiredApprovals()).toBe(1);
    expect(expired.map((entry) => entry.callId)).toEqual([pending.callId]);
    expect(note.posted).toEqual([]);
  });

  it("whose decision record can't be read ends nothing and shows nothing: the run keeps waiting", async () => {
    const now = { value: 7_000_000 };
    const { service, store, expired, pending, note } = await paused(now);
    await store.set(`approval:decision:${pending.runId}:${pending.callId}`, { decision: "approve", decidedBy: "not a person" });
    now.value += WINDOW_MS + 1;
    expect(await service.sweepExpiredApprovals()).toBe(0);
    expect(expired).toEqual([]);
    expect(note.posted).toEqual([]);
    expect(await listed(store, pending.runId)).toHaveLength(1);
  });

  it("once the resumed run has answered, its approval record and listing are gone and a Stop finds it not running", async () => {
    const now = { value: 7_000_000 };
    const { service, sink, store, pending, note } = await paused(now);
    const result = await service.decide(
      { runId: pending.runId, callId: pending.callId, decision: "approve", decidedBy: { id: "alice" } },
      sink,
    );
    expect(result).toMatchObject({ kind: "resumed", outcome: { status: "answered" } });
    expect(note.posted).toEqual(["late"]);
    // The record goes once the answer is out and marked, a moment after the answer reached the console.
    await until(async () => (await store.get(`approval:run:${pending.runId}`)) === undefined, "the approval record to go");
    expect(await listed(store, pending.runId)).toEqual([]);
    expect(await service.stop({ runId: pending.runId, stoppedBy: { id: "alice" }, surface: "console" })).toEqual({ kind: "not_running" });
  });

  it("for a call the run has moved past, with its decision on record, approves nothing: the run's next call still waits", async () => {
    let now = 3_000_000;
    const note = noteTool();
    const model = new ScriptedModel([calls(call("post_note", { text: "one" }), call("post_note", { text: "two" })), say("Both posted.")]);
    const started = await harness(model, {
      tools: [note.tool],
      clock: () => now,
      env: { APPROVAL_TIMEOUT_MS: String(WINDOW_MS) },
      start: false,
    });
    const { hooks, shown } = recordingConsole([note.tool]);
    started.service.attach("console", hooks);
    await started.service.start();
    const { service, sink, store } = started;
    const first = pendingOf(await service.ask({ origin: originFor(), text: "post twice" }, sink));
    await service.decide({ runId: first.runId, callId: first.callId, decision: "approve", decidedBy: { id: "alice" } }, sink);
    await until(() => shown.length === 1, "the run's pause on its second call");
    const second = pendingOf(shown[0]!);
    await store.addToSet(
      "approval:waiting",
      JSON.stringify({ runId: first.runId, callId: first.callId, expiresAt: now - 1, surface: "console" }),
    );
    now += 1_000;
    expect(await service.sweepExpiredApprovals()).toBe(0);
    expect(note.posted).toEqual(["one"]);
    await service.decide({ runId: second.runId, callId: second.callId, decision: "approve", decidedBy: { id: "alice" } }, sink);
    await until(() => shown.length === 2, "the run's answer");
    expect(shown[1]).toMatchObject({ status: "answered", answer: "Both posted." });
    expect(note.posted).toEqual(["one", "two"]);
  });
});
