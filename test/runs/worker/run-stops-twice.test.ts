// Stop pressed twice, by two people: the run stops once, and it says who stopped it first (and a
// replay of the stopped part says so too), on a store this process owns and across processes on
// a shared one.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { StopSignal } from "../../../src/agent/loop/loop-types.js";
import { silentLogger } from "../../../src/logger.js";
import { openStore } from "../../../src/memory/keyv-store.js";
import type { KeyValueStore } from "../../../src/memory/types.js";
import { createRunStops, type RunStops } from "../../../src/runs/worker/run-stops.js";
import { until } from "../../support/until.js";

const alice = { id: "alice", name: "Alice" };
const boss = { id: "boss", name: "Boss" };
const anyone = () => true;

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function sqliteStore(): Promise<KeyValueStore> {
  const store = await openStore(`sqlite://${join(mkdtempSync(join(tmpdir(), "stops-twice-")), "bot.sqlite")}`, silentLogger);
  cleanup.push(() => store.close());
  return store;
}

function stopsOn(store: KeyValueStore, shared: boolean): RunStops {
  const stops = createRunStops({ store, shared, logger: silentLogger, ttlMs: 60_000, pollMs: 20 });
  cleanup.push(() => stops.close());
  return stops;
}

const aborted = (signal: StopSignal) =>
  new Promise<unknown>((resolve) => signal.addEventListener("abort", () => resolve(signal.reason), { once: true }));

describe("Stop pressed twice", () => {
  it("on a store this process owns: the second Stop does not change who stopped the run", async () => {
    const stops = stopsOn(await sqliteStore(), false);
    const watch = stops.watch("run-1", alice, "message");
    expect(await stops.request("run-1", boss, anyone)).toEqual({ kind: "stopping" });
    expect(await stops.request("run-1", alice, anyone)).toEqual({ kind: "stopping" });
    expect(watch.signal.reason).toMatchObject({ guard: "stopped", detail: "stopped by boss", sentence: "Stopped by Boss." });
    expect(await stops.stoppedBefore("run-1", "message")).toEqual(boss);
    watch.dispose();
  });

  it("on a shared store, both asked on another process before its poll: the run says who stopped it first", async () => {
    const store = await sqliteStore();
    const running = stopsOn(store, true);
    const other = stopsOn(store, true);
    const watch = running.watch("run-2", alice, "message");
    // The run's record is written in the background: wait for it as the other process would find it.
    await until(async () => (await store.get("run:live:run-2")) !== undefined, "the run's stop record");
    expect(await other.request("run-2", boss, anyone)).toEqual({ kind: "stopping" });
    expect(await other.request("run-2", alice, anyone)).toEqual({ kind: "stopping" });
    expect(await aborted(watch.signal)).toMatchObject({ guard: "stopped", detail: "stopped by boss", sentence: "Stopped by Boss." });
    expect(await store.get("run:live:run-2")).toEqual({ requester: alice, segment: "message", stoppedBy: boss });
    expect(await running.stoppedBefore("run-2", "message")).toEqual(boss);
  });
});
