// A paused run's resume or expiry item while other work is going on: a shutdown that cuts a resume
// short, in its approved write or at its next checkpoint, leaves it for the next start (nothing shown,
// no apology), a resumed answer the surface fails to show is told as a failure, a resumed run that
// pauses again is not counted as ended, and an expiry waits its turn behind the run its conversation is running.
// Every wait here is for an event (a tool or model call reached, a presenter called), never a time.
import { z } from "zod";
import { describe, expect, it } from "vitest";
import type { Model, ModelReply, ModelRequest, PendingApproval, RunOutcome, Tool } from "../../../src/contracts/types.js";
import { contentText } from "../../../src/agent/content.js";
import type { RunPresenter } from "../../../src/runs/api/presenting.js";
import { harness, closeAfter, pendingOf, sqliteUrl, useApprovalStores } from "../../support/approval-harness.js";
import { noteTool, originFor, startService } from "../../support/service-harness.js";
import { recordingConsole } from "../../support/recording-console.js";

useApprovalStores();

const WINDOW_MS = 60_000;

interface Deferred<T> {
  readonly promise: Promise<T>;
  resolve(value: T): void;
}

function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((settle) => {
    resolve = settle;
  });
  return { promise, resolve };
}

/** A model that answers from the run's question and whether a tool result came last; it honours its signal. */
function modelFrom(reply: (question: string, afterTool: boolean) => ModelReply | Promise<ModelReply>): Model {
  return {
    name: "by-question",
    async complete(request: ModelRequest, signal: AbortSignal) {
      signal.throwIfAborted();
      const question = contentText([...request.messages].reverse().find((message) => message.role === "user")?.content ?? null);
      const aborted = new Promise<never>((_, reject) => signal.addEventListener("abort", () => reject(signal.reason), { once: true }));
      return Promise.race([Promise.resolve(reply(question, request.messages.at(-1)?.role === "tool")), aborted]);
    },
  };
}

const writeCall = (text: string, id: string): ModelReply => ({
  content: null,
  toolCalls: [{ id, name: "post_note", arguments: JSON.stringify({ text }) }],
});
const answer = (text: string): ModelReply => ({ content: text, toolCalls: [] });

/** The console attached with a presenter that shows any run (as the real surfaces can), recording what it was given. */
describe("a paused run's resume or expiry item", () => {
  it("cut short by a shutdown while its approved write is still running shows nothing and stays for the next start", async () => {
    const url = sqliteUrl();
    const posted: string[] = [];
    const writing = deferred();
    // A write slow to finish: shutdown does not cancel an approved write, so it outlasts the grace period.
    const slowNote: Tool<{ text: string }> = {
      name: "post_note",
      description: "posts a note where everyone sees it",
      schema: z.object({ text: z.string() }),
      effect: "write",
      execute: async ({ text }) => {
        posted.push(text);
        writing.resolve();
        return new Promise<string>(() => {});
      },
    };
    const model = modelFrom((_, afterTool) => (afterTool ? answer("Posted.") : writeCall("once", "w1")));
    const first = await startService({ model, storeUrl: url, tools: [slowNote], start: false });
    let pending: PendingApproval;
    try {
      const console1 = recordingConsole([slowNote]);
      first.service.attach("console", console1.hooks);
      await first.service.start();
      pending = pendingOf(await first.service.ask({ origin: originFor(), text: "post once" }, first.sink));
      const decided = await first.service.decide(
        { runId: pending.runId, callId: pending.callId, decision: "approve", decidedBy: { id: "alice" } },
        first.sink,
      );
      expect(decided).toMatchObject({ kind: "resumed" });
      await writing.promise;

      await first.service.close(50);
      expect(console1.failed).toEqual([]);
      expect(console1.shown).toEqual([]);
      // The run is still on record, listed and decided: what the next start takes up.
      expect(await first.store.get(`approval:run:${pending.runId}`)).toBeDefined();
      expect((await first.store.setMembers("approval:waiting")).filter((member) => member.includes(pending.runId))).toHaveLength(1);
      expect(await first.store.get(`approval:decision:${pending.runId}:${pending.callId}`)).toMatchObject({ decision: "approve" });
    } finally {
      // Closes the store (and the service, again: a no-op after the close above, unless a step before it failed).
      await first.close();
    }

    const note = noteTool();
    const second = await startService({ model, storeUrl: url, tools: [note.tool], start: false });
    closeAfter(second);
    const console2 = recordingConsole([note.tool]);
    second.service.attach("console", console2.hooks);
    await second.service.start();
    // Taken up and answered; the write that was cut short is not run again (its outcome is unknown, and the run is told so).
    expect(await console2.firstShown).toMatchObject({ status: "answered", runId: pending.runId, answer: "Posted." });
    expect(JSON.stringify(console2.shown[0])).toContain("the outcome of this write is unknown");
    expect(posted).toEqual(["once"]);
    expect(note.posted).toEqual([]);
    expect(console2.failed).toEqual([]);
  });

  it("stopped by a shutdown at the checkpoint after its next step tells nothing, and the next start answers it from there", async () => {
    const url = sqliteUrl();
    const note = noteTool();
    const looked: string[] = [];
    const look: Tool<{ what: string }> = {
      name: "look",
      description: "reads something",
      schema: z.object({ what: z.string() }),
      effect: "read",
      execute: async ({ what }) => {
        looked.push(what);
        return `seen: ${what}`;
      },
    };
    const afterWrite = deferred();
    const release = deferred();
    let calls = 0;
    // The ask's call pauses for the write; once it is approved and done, a read (released once the shutdown began); then the answer.
    const model = modelFrom(async () => {
      calls += 1;
      if (calls === 1) return writeCall("once", "w1");
      if (calls === 2) {
        afterWrite.resolve();
        await release.promise;
        return { content: null, toolCalls: [{ id: "r1", name: "look", arguments: JSON.stringify({ what: "the channel" }) }] };
      }
      return answer("Posted and looked.");
    });
    const first = await startService({ model, storeUrl: url, tools: [note.tool, look], start: false });
    let pending: PendingApproval;
    try {
      const console1 = recordingConsole([note.tool, look]);
      first.service.attach("console", console1.hooks);
      await first.service.start();
      pending = pendingOf(await first.service.ask({ origin: originFor(), text: "post once, then look" }, first.sink));
      await first.service.decide(
        { runId: pending.runId, callId: pending.callId, decision: "approve", decidedBy: { id: "alice" } },
        first.sink,
      );
      await afterWrite.promise;
      const closing = first.service.close(10_000);
      release.resolve();
      await closing;
      expect(looked).toEqual(["the channel"]);
      expect(console1.failed).toEqual([]);
      expect(console1.shown).toEqual([]);
      expect(await first.store.get(`approval:run:${pending.runId}`)).toBeDefined();
    } finally {
      await first.close();
    }

    const second = await startService({ model, storeUrl: url, tools: [note.tool, look], start: false });
    closeAfter(second);
    const console2 = recordingConsole([note.tool, look]);
    second.service.attach("console", console2.hooks);
    await second.service.start();
    expect(await console2.firstShown).toMatchObject({ status: "answered", runId: pending.runId, answer: "Posted and looked." });
    // Neither the approved write nor the read after it ran again: the run went on from the checkpoint after the read.
    expect(note.posted).toEqual(["once"]);
    expect(looked).toEqual(["the channel"]);
    expect(console2.failed).toEqual([]);
  });

  it("whose answer the surface fails to show tells that failure through the same surface", async () => {
    const note = noteTool();
    const model = modelFrom((_, afterTool) => (afterTool ? answer("Posted.") : writeCall("once", "w1")));
    const started = await startService({ model, storeUrl: sqliteUrl(), tools: [note.tool], start: false });
    closeAfter(started);
    const failed: unknown[] = [];
    const told = deferred();
    const outage = new Error("the platform answered 503");
    started.service.attach("console", {
      tools: [note.tool],
      present: (): RunPresenter => ({
        sink: () => {},
        finish: async (outcome) => {
          if (outcome.status === "answered") throw outage;
          return { messageId: "card" };
        },
        fail: async (error) => {
          failed.push(error);
          told.resolve();
        },
      }),
    });
    await started.service.start();
    const { service, sink } = started;
    const pending = pendingOf(await service.ask({ origin: originFor(), text: "post once" }, sink));
    await service.decide({ runId: pending.runId, callId: pending.callId, decision: "approve", decidedBy: { id: "alice" } }, sink);
    await told.promise;
    expect(failed).toEqual([outage]);
    expect(note.posted).toEqual(["once"]);
  });

  it("that applies a decision claimed before a crash, on a run that then pauses for its next write, is not counted as ended", async () => {
    let now = 5_000_000;
    const note = noteTool();
    const model = modelFrom((_, afterTool) => (afterTool ? writeCall("two", "w2") : writeCall("one", "w1")));
    const started = await harness(model, {
      tools: [note.tool],
      clock: () => now,
      env: { APPROVAL_TIMEOUT_MS: String(WINDOW_MS) },
      start: false,
    });
    const shown = recordingConsole([note.tool]);
    started.service.attach("console", shown.hooks);
    await started.service.start();
    const { service, store, sink } = started;
    const first = pendingOf(await service.ask({ origin: originFor(), text: "post twice" }, sink));
    // As a process that claimed the click and died before the resume ran: the expiry item applies the decision.
    await store.set(`approval:decision:${first.runId}:${first.callId}`, { decision: "approve", decidedBy: { id: "alice" }, at: now });
    now += WINDOW_MS + 1;
    expect(await service.sweepExpiredApprovals()).toBe(0);
    expect(note.posted).toEqual(["one"]);
    const second = pendingOf((await shown.firstShown) as RunOutcome);
    expect(second).toMatchObject({ runId: first.runId, callId: "w2" });
    expect((await service.waitingApprovals("console:approvals")).map((waiting) => waiting.callId)).toEqual(["w2"]);
    expect(shown.failed).toEqual([]);
  });

  it("queued by the sweep waits behind the run its conversation is running, while another conversation's goes ahead", async () => {
    let now = 9_000_000;
    const note = noteTool();
    const held = deferred();
    const holding = deferred();
    const order: string[] = [];
    const expiredD = deferred();
    const model = modelFrom((question, afterTool) => {
      if (question === "hold") {
        holding.resolve();
        return held.promise.then(() => answer("held, then answered"));
      }
      return afterTool ? answer(`${question} ended`) : writeCall(question, `w-${question}`);
    });
    const runsOf = new Map<string, string>();
    const started = await startService({
      model,
      storeUrl: sqliteUrl(),
      tools: [note.tool],
      clock: () => now,
      // Two slots: the held run takes one, and whichever expiry item runs beside it takes the other.
      env: { APPROVAL_TIMEOUT_MS: String(WINDOW_MS), MAX_CONCURRENT_RUNS: "2" },
      expired: (pending: PendingApproval) => {
        const name = runsOf.get(pending.runId) ?? pending.runId;
        order.push(name);
        if (name === "D") expiredD.resolve();
      },
    });
    closeAfter(started);
    const { service, sink } = started;
    const inC = originFor("alice", "console:c");
    const inE = originFor("alice", "console:e");
    const b = pendingOf(await service.ask({ origin: inC, text: "B" }, sink));
    runsOf.set(b.runId, "B");
    now += 1;
    const d = pendingOf(await service.ask({ origin: inE, text: "D" }, sink));
    runsOf.set(d.runId, "D");
    const a = service.ask({ origin: inC, text: "hold" }, sink).then((outcome) => {
      order.push("A");
      return outcome;
    });
    await holding.promise;
    now += WINDOW_MS + 10;
    // Due soonest first: B's item (conversation c) is queued before D's (conversation e).
    const sweeping = service.sweepExpiredApprovals();
    // D's expiry ran on the free slot; had B's been given a lane of its own, it would have taken that slot first.
    await expiredD.promise;
    held.resolve();
    expect(await a).toMatchObject({ status: "answered", answer: "held, then answered" });
    expect(await sweeping).toBe(2);
    expect(order).toEqual(["D", "A", "B"]);
    expect(note.posted).toEqual([]);
  });
});
