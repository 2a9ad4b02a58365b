// Writes at most once: claimed → executing → done, and what a second attempt gets.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { Tool, ToolContext } from "../src/agent/types.js";
import { silentLogger } from "../src/logger.js";
import { createWriteLedger, unknownOutcomeNote, UNKNOWN_OUTCOME } from "../src/runs/write-ledger.js";
import { mapStore } from "./support/map-store.js";

const context = (callId: string): ToolContext => ({ signal: new AbortController().signal, runId: "run1", callId, origin: { surface: "console", conversationKey: "c", requester: { id: "a" }, place: {} } });

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

  it("lists a write left executing (the process died during it) and words a note for the model", async () => {
    const store = mapStore();
    const ledger = createWriteLedger(store, silentLogger);
    const tool = ledger.guard(writeTool([], new Promise(() => {})));
    void tool.execute({ text: "hi" }, context("c1"));
    await new Promise((resolve) => setImmediate(resolve));
    const unfinished = await ledger.unfinished("run1");
    expect(unfinished).toMatchObject([{ callId: "c1", state: "executing", tool: "post" }]);
    expect(unknownOutcomeNote(unfinished)).toContain(UNKNOWN_OUTCOME);
    expect(unknownOutcomeNote([])).toBeUndefined();
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
