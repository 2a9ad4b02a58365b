// The states the write ledger reports for a run's writes: a write that completed, or failed with
// an error the model saw, is done with how it ended; one left claimed or executing (the process
// died) is listed in the state it was left in, so a resumed run can tell it is not finished.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { Tool, ToolContext } from "../../../src/contracts/types.js";
import { silentLogger } from "../../../src/logger.js";
import type { KeyValueStore } from "../../../src/memory/types.js";
import { createWriteLedger } from "../../../src/runs/worker/write-ledger.js";
import { mapStore } from "../../support/map-store.js";

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

describe("the write ledger's states", () => {
  it("a write that completed is done with its result, and one that failed is done with its error", async () => {
    let now = NOW;
    const ledger = createWriteLedger(mapStore(), silentLogger, () => (now += 1));
    await ledger.guard(writeTool(async () => "paid")).execute({ text: "100" }, context("c1"));
    await expect(
      ledger.guard(writeTool(async () => Promise.reject(new Error("card declined")))).execute({ text: "200" }, context("c2")),
    ).rejects.toThrow("card declined");
    expect(await ledger.entries("run1")).toEqual([
      { callId: "c1", state: "done", tool: "pay", args: '{"text":"100"}', at: NOW + 3, ended: { outcome: "ok", text: "paid" } },
      { callId: "c2", state: "done", tool: "pay", args: '{"text":"200"}', at: NOW + 6, ended: { outcome: "error", text: "card declined" } },
    ]);
  });

  it("a write still executing is listed as executing, with what it was called with, until it completes", async () => {
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
    expect(await ledger.entries("run1")).toEqual([{ callId: "c1", state: "executing", tool: "pay", args: '{"text":"100"}', at: NOW }]);
    finish("paid");
    expect(await done).toBe("paid");
    expect(await ledger.entries("run1")).toMatchObject([{ callId: "c1", state: "done", ended: { outcome: "ok", text: "paid" } }]);
  });

  it("a write claimed whose start could not be recorded did not run, and stays listed as claimed", async () => {
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
    expect(await ledger.entries("run1")).toEqual([{ callId: "c1", state: "claimed", tool: "pay", args: '{"text":"100"}', at: NOW }]);
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
    expect((await ledger.entries("run1")).map((entry) => entry.callId)).toEqual(["c1"]);
    expect((await ledger.entries("run2")).map((entry) => entry.callId)).toEqual(["c2"]);
    expect(await ledger.entries("run3")).toEqual([]);
  });
});
