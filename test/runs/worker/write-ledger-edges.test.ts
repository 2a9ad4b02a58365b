// The write ledger at its edges: a kept result at exactly its bound and one past it, a call with
// no id (not ledgered: nothing to find it by again), entries in the order of their last record,
// and the call ids a saved state already shows.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { Tool, ToolContext } from "../../../src/contracts/types.js";
import { silentLogger } from "../../../src/logger.js";
import { createWriteLedger, KEPT_TEXT_CHARS, knownCallIds, UNKNOWN_OUTCOME } from "../../../src/runs/worker/write-ledger.js";
import { capturingLogger } from "../../support/capturing-logger.js";
import { mapStore } from "../../support/map-store.js";

const context = (callId: string | undefined): ToolContext => ({
  signal: new AbortController().signal,
  runId: "run1",
  callId,
  origin: { surface: "console", conversationKey: "c", requester: { id: "a" }, place: {} },
});

function writeTool(work: (text: string) => Promise<string>): Tool<{ text: string }> {
  return { name: "pay", description: "pays", schema: z.object({ text: z.string() }), effect: "write", execute: ({ text }) => work(text) };
}

describe("the write ledger's edges", () => {
  it("keeps a result of exactly the bound whole, and cuts one a character longer to the bound with a note of its length", async () => {
    const ledger = createWriteLedger(mapStore(), silentLogger);
    const exact = "a".repeat(KEPT_TEXT_CHARS);
    const longer = "b".repeat(KEPT_TEXT_CHARS + 1);
    await ledger.guard(writeTool(async () => exact)).execute({ text: "1" }, context("c1"));
    await ledger.guard(writeTool(async () => longer)).execute({ text: "2" }, context("c2"));
    const ended = (await ledger.entries("run1")).map((entry) => entry.ended?.text);
    expect(ended).toEqual([exact, `${"b".repeat(KEPT_TEXT_CHARS)}\n…[cut: the result had 16,001 characters]`]);
  });

  it("a call without an id runs each time and is not ledgered", async () => {
    const ledger = createWriteLedger(mapStore(), silentLogger);
    const paid: string[] = [];
    const tool = ledger.guard(
      writeTool(async (text) => {
        paid.push(text);
        return "paid";
      }),
    );
    await tool.execute({ text: "1" }, context(undefined));
    await tool.execute({ text: "1" }, context(undefined));
    expect(paid).toEqual(["1", "1"]);
    expect(await ledger.entries("run1")).toEqual([]);
  });

  it("lists entries in the order of their last record, not the order they were claimed", async () => {
    let now = 1_000;
    const ledger = createWriteLedger(mapStore(), silentLogger, () => (now += 1));
    let finishFirst: (value: string) => void = () => {};
    let started: () => void = () => {};
    const running = new Promise<void>((resolve) => (started = resolve));
    const first = ledger
      .guard(
        writeTool(
          () =>
            new Promise<string>((resolve) => {
              finishFirst = resolve;
              started();
            }),
        ),
      )
      .execute({ text: "1" }, context("c1"));
    await running;
    await ledger.guard(writeTool(async () => "second")).execute({ text: "2" }, context("c2"));
    finishFirst("first");
    await first;
    expect((await ledger.entries("run1")).map((entry) => entry.callId)).toEqual(["c2", "c1"]);
  });

  it("a write whose end could not be recorded returns its result, says so in the log, and is never made again", async () => {
    const store = mapStore();
    const realSet = store.set;
    store.set = async (key, value, ttl) => {
      if ((value as { state?: string }).state === "done") throw new Error("store went away");
      await realSet(key, value, ttl);
    };
    const { logger, warnings } = capturingLogger();
    const ledger = createWriteLedger(store, logger);
    const paid: string[] = [];
    const tool = ledger.guard(
      writeTool(async (text) => {
        paid.push(text);
        return "paid";
      }),
    );
    expect(await tool.execute({ text: "1" }, context("c1"))).toBe("paid");
    expect(warnings().map((line) => line.msg)).toEqual(["could not record that a write finished"]);
    await expect(tool.execute({ text: "1" }, context("c1"))).rejects.toThrow(`${UNKNOWN_OUTCOME}.`);
    expect(paid).toEqual(["1"]);
  });

  it("knows the call ids a saved state shows, as call records and as the model's tool calls", () => {
    const ids = knownCallIds(
      [{ callId: "recorded" }],
      [{ role: "user" }, { role: "assistant", toolCalls: [{ id: "asked", name: "pay", arguments: "{}" }] }],
    );
    expect(ids).toEqual(new Set(["recorded", "asked"]));
  });
});
