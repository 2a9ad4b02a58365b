// What the write ledger reports as unfinished: only writes that started and never finished.
// A write that completed, or failed with an error the model saw, is finished; one left claimed
// or executing (the process died) is not, with its state as it was left.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { Tool, ToolContext } from "../src/agent/types.js";
import { silentLogger } from "../src/logger.js";
import type { KeyValueStore } from "../src/memory/types.js";
import { createWriteLedger } from "../src/runs/write-ledger.js";
import { mapStore } from "./support/map-store.js";

const NOW = 1_800_000_000_000;
const context = (callId: string, runId = "run1"): ToolContext => ({
  signal: new AbortController().signal,
  runId,
  callId,
  origin: { surface: "console", conversationKey: "c", requester: { id: "a" }, place: {} },
});

function writeTool(work: (text: string) => Promise<string>): Tool<{ text: string }> {
  return { name: "pay", description: "pays", schema: z.object({ text: z.string() }), effect: "write", execute: ({ text }) => work(text) };
}

describe("the write ledger's unfinished writes", () => {
  it("a write that completed is finished, and so is one that failed with an error", async () => {
    const ledger = createWriteLedger(mapStore(), silentLogger, () => NOW);
    await ledger.guard(writeTool(async () => "paid")).execute({ text: "100" }, context("c1"));
    await expect(
      ledger.guard(writeTool(async () => Promise.reject(new Error("card declined")))).execute({ text: "200" }, context("c2")),
    ).rejects.toThrow("card declined");
    expect(await ledger.unfinished("run1")).toEqual([]);
  });

  it("a write still executing is unfinished, with what it was called with, until it completes", async () => {
    const ledger = createWriteLedger(mapStore(), silentLogger, () => NOW);
    let finish: (value: string) => void = () => {};
    let started: () => void = () => {};
    const running = new Promise<void>((resolve) => (started = resolve));
    const tool = ledger.guard(
      writeTool(
        () =>
          new Promise<string>((resolve) => {
            finish = resolve;
            started();
          }),
      ),
    );
    const done = tool.execute({ text: "100" }, context("c1"));
    await running;
    expect(await ledger.unfinished("run1")).toEqual([{ callId: "c1", state: "executing", tool: "pay", args: '{"text":"100"}', at: NOW }]);
    finish("paid");
    expect(await done).toBe("paid");
    expect(await ledger.unfinished("run1")).toEqual([]);
  });

  it("a write claimed whose start could not be recorded did not run, and stays unfinished as claimed", async () => {
    const real = mapStore();
    const store: KeyValueStore = {
      ...real,
      set: async () => Promise.reject(new Error("store went away")),
    };
    const ran: string[] = [];
    const ledger = createWriteLedger(store, silentLogger, () => NOW);
    const tool = ledger.guard(
      writeTool(async (text) => {
        ran.push(text);
        return "paid";
      }),
    );
    await expect(tool.execute({ text: "100" }, context("c1"))).rejects.toThrow("store went away");
    expect(ran).toEqual([]);
    expect(await ledger.unfinished("run1")).toEqual([{ callId: "c1", state: "claimed", tool: "pay", args: '{"text":"100"}', at: NOW }]);
  });

  it("lists only the run's own writes, and skips an entry that is not a ledger entry", async () => {
    const store = mapStore();
    const ledger = createWriteLedger(store, silentLogger, () => NOW);
    const hang = ledger.guard(writeTool(() => new Promise<string>(() => {})));
    void hang.execute({ text: "a" }, context("c1", "run1"));
    void hang.execute({ text: "b" }, context("c2", "run2"));
    await new Promise((resolve) => setImmediate(resolve));
    await store.addToSet("write:calls:run1", "c9");
    await store.set("write:run1:c9", { state: "running?", tool: "pay" });
    expect((await ledger.unfinished("run1")).map((entry) => entry.callId)).toEqual(["c1"]);
    expect((await ledger.unfinished("run2")).map((entry) => entry.callId)).toEqual(["c2"]);
    expect(await ledger.unfinished("run3")).toEqual([]);
  });
});
