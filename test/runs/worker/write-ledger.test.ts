// Writes at most once: claimed → executing → done, what a second attempt gets, and how the
// entries a resumed state does not show are put back into it.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { RunState } from "../../../src/agent/loop/run-state.js";
import { callSignature } from "../../../src/agent/tools/signature.js";
import type { Tool, ToolContext } from "../../../src/contracts/types.js";
import { silentLogger } from "../../../src/logger.js";
import { UNKNOWN_OUTCOME_OBSERVATION, withUnknownOutcomes } from "../../../src/runs/worker/unknown-writes.js";
import { createWriteLedger, KEPT_TEXT_CHARS, RESULT_NOT_KEPT, UNKNOWN_OUTCOME } from "../../../src/runs/worker/write-ledger.js";
import { mapStore } from "../../support/map-store.js";
import { fixturePath } from "../../support/repo-paths.js";

const context = (callId: string): ToolContext => ({
  signal: new AbortController().signal,
  runId: "run1",
  callId,
  origin: { surface: "console", conversationKey: "c", requester: { id: "a" }, place: {} },
});

function writeTool(runs: string[], gate?: Promise<void>): Tool<{ text: string }> {
  return {
    name: "post",
    description: "posts",
    schema: z.object({ text: z.string() }),
    effect: "write",
    execute: async ({ text }) => {
      runs.push(text);
      await gate;
      return "posted";
    },
  };
}

const emptyState = {
  version: 1,
  runId: "run1",
  origin: context("c1").origin,
  question: "q",
  messages: [{ role: "user", content: "q" }],
  steps: [],
  guards: { repeat: { streak: 0 }, recent: [], errorStreak: 0 },
  usage: { promptTokens: 0, completionTokens: 0 },
  elapsedMs: 0,
} as unknown as RunState;

describe("write ledger", () => {
  it("runs a write once; the same call again gets the outcome it had, without running again", async () => {
    const runs: string[] = [];
    const ledger = createWriteLedger(mapStore(), silentLogger);
    const tool = ledger.guard(writeTool(runs));
    expect(await tool.execute({ text: "hi" }, context("c1"))).toBe("posted");
    expect(await tool.execute({ text: "hi" }, context("c1"))).toBe("posted");
    expect(await tool.execute({ text: "hi" }, context("c2"))).toBe("posted");
    expect(runs).toEqual(["hi", "hi"]);
    const failing = ledger.guard({ ...writeTool(runs), execute: async () => Promise.reject(new Error("channel_not_found")) });
    await expect(failing.execute({ text: "x" }, context("c3"))).rejects.toThrow("channel_not_found");
    await expect(failing.execute({ text: "x" }, context("c3"))).rejects.toThrow("channel_not_found");
  });

  it("refuses a second attempt of a write still executing (the process died during it) with the unknown outcome", async () => {
    const runs: string[] = [];
    const ledger = createWriteLedger(mapStore(), silentLogger);
    void ledger.guard(writeTool(runs, new Promise(() => {}))).execute({ text: "hi" }, context("c1"));
    await new Promise((resolve) => setImmediate(resolve));
    await expect(ledger.guard(writeTool(runs)).execute({ text: "hi" }, context("c1"))).rejects.toThrow(UNKNOWN_OUTCOME);
    expect(runs).toEqual(["hi"]);
  });

  it("keeps a long result cut to its bound", async () => {
    const store = mapStore();
    const ledger = createWriteLedger(store, silentLogger);
    const long = "x".repeat(KEPT_TEXT_CHARS + 10);
    await ledger.guard({ ...writeTool([]), execute: async () => long }).execute({ text: "hi" }, context("c1"));
    const [entry] = await ledger.entries("run1");
    expect(entry?.ended?.text.startsWith("x".repeat(KEPT_TEXT_CHARS))).toBe(true);
    expect(entry?.ended?.text).toContain(`the result had ${(KEPT_TEXT_CHARS + 10).toLocaleString("en-US")} characters`);
  });

  it("lists a write left executing (the process died during it) and puts it back as a step whose outcome is unknown", async () => {
    const store = mapStore();
    const ledger = createWriteLedger(store, silentLogger);
    const tool = ledger.guard(writeTool([], new Promise(() => {})));
    void tool.execute({ text: "hi" }, context("c1"));
    await new Promise((resolve) => setImmediate(resolve));
    const entries = await ledger.entries("run1");
    expect(entries).toMatchObject([{ callId: "c1", state: "executing", tool: "post" }]);
    const added = withUnknownOutcomes(emptyState, entries);
    expect(added.state.steps).toMatchObject([
      {
        index: 1,
        calls: [{ callId: "c1", tool: "post", args: '{"text":"hi"}', outcome: "error", observation: UNKNOWN_OUTCOME_OBSERVATION }],
      },
    ]);
    expect(added.state.messages.slice(1)).toEqual([
      { role: "assistant", content: null, toolCalls: [{ id: "c1", name: "post", arguments: '{"text":"hi"}' }] },
      { role: "tool", toolCallId: "c1", content: UNKNOWN_OUTCOME_OBSERVATION },
    ]);
    expect(added.events.map((event) => event.type)).toEqual(["tool_called", "tool_result"]);
    expect(UNKNOWN_OUTCOME_OBSERVATION).toContain(UNKNOWN_OUTCOME);
    expect(withUnknownOutcomes(emptyState, [])).toEqual({ state: emptyState, events: [] });
  });

  it("puts a finished write back with what it returned or threw, in the order they ran, counted by the guards as just run", async () => {
    const store = mapStore();
    let now = 1_000;
    const ledger = createWriteLedger(store, silentLogger, () => (now += 10));
    await ledger.guard(writeTool([])).execute({ text: "first" }, context("c1"));
    const failing = ledger.guard({ ...writeTool([]), execute: async () => Promise.reject(new Error("rate limited")) });
    await failing.execute({ text: "second" }, context("c2")).catch(() => undefined);
    const entries = await ledger.entries("run1");
    expect(entries.map((entry) => [entry.callId, entry.state, entry.ended])).toEqual([
      ["c1", "done", { outcome: "ok", text: "posted" }],
      ["c2", "done", { outcome: "error", text: "rate limited" }],
    ]);
    const added = withUnknownOutcomes(emptyState, entries, (result) => `[${result}]`);
    expect(added.state.steps[0]?.calls).toMatchObject([
      { callId: "c1", outcome: "ok", result: "posted", observation: "[posted]" },
      { callId: "c2", outcome: "error", result: "Error: rate limited", observation: "[Error: rate limited]" },
    ]);
    expect(added.state.messages.filter((message) => message.role === "tool").map((message) => message.content)).toEqual([
      "[posted]",
      "[Error: rate limited]",
    ]);
    expect(added.state.guards).toMatchObject({
      repeat: { lastSignature: callSignature("post", '{"text":"second"}'), streak: 1 },
      errorStreak: 1,
      lastObservation: "[Error: rate limited]",
    });
  });

  it("reads the entries today's main stores (no outcome kept): a finished one is put back as made, an executing one as unknown", async () => {
    const fixture = JSON.parse(readFileSync(fixturePath("ledger-entries-main-b0c2504.json"), "utf8")) as {
      entries: Record<string, unknown>;
      sets: Record<string, string[]>;
    };
    const store = mapStore();
    for (const [key, value] of Object.entries(fixture.entries)) await store.set(key, value);
    for (const [key, members] of Object.entries(fixture.sets)) for (const member of members) await store.addToSet(key, member);
    const ledger = createWriteLedger(store, silentLogger);
    const entries = await ledger.entries("run1");
    expect(entries.map((entry) => [entry.callId, entry.state])).toEqual([
      ["w1", "done"],
      ["w2", "executing"],
    ]);
    expect(withUnknownOutcomes(emptyState, entries).state.steps[0]?.calls).toMatchObject([
      { callId: "w1", tool: "post", args: '{"text":"made"}', outcome: "ok", observation: RESULT_NOT_KEPT },
      { callId: "w2", tool: "post", args: '{"text":"hanging"}', outcome: "error", observation: UNKNOWN_OUTCOME_OBSERVATION },
    ]);
    // The same calls tried again (an approved write resumed from its approval) are not made again.
    const runs: string[] = [];
    expect(await ledger.guard(writeTool(runs)).execute({ text: "made" }, context("w1"))).toBe(RESULT_NOT_KEPT);
    await expect(ledger.guard(writeTool(runs)).execute({ text: "hanging" }, context("w2"))).rejects.toThrow(UNKNOWN_OUTCOME);
    expect(runs).toEqual([]);
  });

  it("does not run the write when the store can't record the claim, and leaves read tools alone", async () => {
    const runs: string[] = [];
    const store = { ...mapStore(), setIfAbsent: async () => Promise.reject(new Error("store down")) };
    const ledger = createWriteLedger(store, silentLogger);
    await expect(ledger.guard(writeTool(runs)).execute({ text: "hi" }, context("c1"))).rejects.toThrow("store down");
    expect(runs).toEqual([]);
    const read = { ...writeTool(runs), effect: "read" as const };
    expect(ledger.guard(read)).toBe(read);
  });
});
