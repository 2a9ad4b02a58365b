// Writes at most once: claimed → executing → done, and what a second attempt gets.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { RunState } from "../src/agent/run-state.js";
import type { Tool, ToolContext } from "../src/agent/types.js";
import { silentLogger } from "../src/logger.js";
import { UNKNOWN_OUTCOME_OBSERVATION, withUnknownOutcomes } from "../src/runs/unknown-writes.js";
import { createWriteLedger, UNKNOWN_OUTCOME } from "../src/runs/write-ledger.js";
import { mapStore } from "./support/map-store.js";

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

describe("write ledger", () => {
  it("runs a write once; the same call again is refused with the unknown outcome", async () => {
    const runs: string[] = [];
    const ledger = createWriteLedger(mapStore(), silentLogger);
    const tool = ledger.guard(writeTool(runs));
    expect(await tool.execute({ text: "hi" }, context("c1"))).toBe("posted");
    await expect(tool.execute({ text: "hi" }, context("c1"))).rejects.toThrow(UNKNOWN_OUTCOME);
    expect(await tool.execute({ text: "hi" }, context("c2"))).toBe("posted");
    expect(runs).toEqual(["hi", "hi"]);
  });

  it("lists a write left executing (the process died during it) and puts it back as a step whose outcome is unknown", async () => {
    const store = mapStore();
    const ledger = createWriteLedger(store, silentLogger);
    const tool = ledger.guard(writeTool([], new Promise(() => {})));
    void tool.execute({ text: "hi" }, context("c1"));
    await new Promise((resolve) => setImmediate(resolve));
    const unfinished = await ledger.unfinished("run1");
    expect(unfinished).toMatchObject([{ callId: "c1", state: "executing", tool: "post" }]);
    const state = {
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
    const added = withUnknownOutcomes(state, unfinished);
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
    expect(withUnknownOutcomes(state, [])).toEqual({ state, events: [] });
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
