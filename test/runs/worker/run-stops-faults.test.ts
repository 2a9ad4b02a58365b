// Stop requests (src/runs/worker/run-stops.ts) when the store fails under them, and at the seams of a
// run's life: a Stop whose mark can't be written still stops; a failing read, write or delete
// never rejects in the background; a run ended while a poll reads it is left alone; the first
// stop keeps its name; a late dispose of an ended run does not forget the resumed one.
import { describe, expect, it } from "vitest";
import { stopOf } from "../../../src/agent/guards/external-stops.js";
import type { Person } from "../../../src/contracts/types.js";
import { silentLogger } from "../../../src/logger.js";
import type { KeyValueStore } from "../../../src/memory/types.js";
import { createRunStops } from "../../../src/runs/worker/run-stops.js";
import { mapStore } from "../../support/map-store.js";

const alice = { id: "alice" };
const bob = { id: "bob" };
const anyone = (_requester: Person) => true;
const POLL_MS = 5;
const broken = () => Promise.reject(new Error("store down"));

/** The store, and a promise of the next read of `key` (each call waits for one more read). */
function readsOf(store: KeyValueStore, key: string): { store: KeyValueStore; nextRead(): Promise<void> } {
  const waiting: Array<() => void> = [];
  return {
    nextRead: () => new Promise<void>((resolve) => waiting.push(resolve)),
    store: {
      ...store,
      get: async (asked) => {
        try {
          return await store.get(asked);
        } finally {
          if (asked === key) for (const resolve of waiting.splice(0)) resolve();
        }
      },
    },
  };
}

/** Two more polls have read the latest stop: one of them began after now. */
async function twoPolls(reads: { nextRead(): Promise<void> }): Promise<void> {
  await reads.nextRead();
  await reads.nextRead();
}

describe("stops on a store that fails", () => {
  it("stops a run though its stop mark can't be written", async () => {
    const stops = createRunStops({ store: { ...mapStore(), set: broken }, shared: false, logger: silentLogger, ttlMs: 60_000 });
    const watch = stops.watch("r1", alice, "s1");
    expect(await stops.request("r1", bob, anyone)).toEqual({ kind: "stopping" });
    expect(watch.signal.aborted).toBe(true);
  });

  it("says nobody stopped a segment before when the mark can't be read", async () => {
    const stops = createRunStops({ store: { ...mapStore(), get: broken }, shared: false, logger: silentLogger, ttlMs: 60_000 });
    expect(await stops.stoppedBefore("r1", "s1")).toBeUndefined();
  });

  it("keeps a shared store's run stoppable here when its record can't be written or cleared", async () => {
    const stops = createRunStops({
      store: { ...mapStore(), set: broken, delete: broken },
      shared: true,
      logger: silentLogger,
      ttlMs: 60_000,
    });
    const watch = stops.watch("r1", alice, "s1");
    expect(await stops.request("r1", bob, anyone)).toEqual({ kind: "stopping" });
    watch.dispose();
    await stops.close();
    expect(watch.signal.aborted).toBe(true);
  });

  it("goes on polling when the latest stop can't be read", async () => {
    const reads = readsOf({ ...mapStore(), get: broken }, "run:stops:latest");
    const stops = createRunStops({ store: reads.store, shared: true, logger: silentLogger, ttlMs: 60_000, pollMs: POLL_MS });
    stops.watch("r1", alice, "s1");
    await twoPolls(reads);
    await stops.close();
  });

  it("goes on polling when a run's record can't be read", async () => {
    const shared = mapStore();
    const failingRecord: KeyValueStore = { ...shared, get: (key) => (key.startsWith("run:live:") ? broken() : shared.get(key)) };
    const reads = readsOf(failingRecord, "run:live:r1");
    const here = createRunStops({ store: reads.store, shared: true, logger: silentLogger, ttlMs: 60_000, pollMs: POLL_MS });
    here.watch("r1", alice, "s1");
    await shared.set("run:stops:latest", "mark-1", 60_000);
    await reads.nextRead();
    await shared.set("run:stops:latest", "mark-2", 60_000);
    await reads.nextRead();
    await here.close();
  });
});

describe("stops at the seams of a run's life", () => {
  it("leaves alone a run that ended while a poll read its record", async () => {
    const shared = mapStore();
    let ended: () => void = () => undefined;
    let readWhileEnding: () => void = () => undefined;
    const endedAndRead = new Promise<void>((resolve) => {
      readWhileEnding = resolve;
    });
    const endingStore: KeyValueStore = {
      ...shared,
      get: async (key) => {
        const value = await shared.get(key);
        if (key === "run:live:r1") {
          ended();
          readWhileEnding();
        }
        return value;
      },
    };
    const reads = readsOf(endingStore, "run:stops:latest");
    const here = createRunStops({ store: reads.store, shared: true, logger: silentLogger, ttlMs: 60_000, pollMs: POLL_MS });
    const elsewhere = createRunStops({ store: shared, shared: true, logger: silentLogger, ttlMs: 60_000 });
    const watch = here.watch("r1", alice, "s1");
    here.watch("r2", alice, "s2"); // keeps the polls going once r1 ended
    ended = () => watch.dispose();
    while (!shared.data.has("run:live:r1")) await Promise.resolve(); // its record, written in the background
    expect(await elsewhere.request("r1", bob, anyone)).toEqual({ kind: "stopping" });
    await endedAndRead;
    await twoPolls(reads);
    await here.close();
    expect(watch.signal.aborted).toBe(false);
  });

  it("keeps the first stop's name when a restart of the run is stopped again", () => {
    const stops = createRunStops({ store: mapStore(), shared: false, logger: silentLogger, ttlMs: 60_000 });
    const first = stops.watch("r1", alice, "s1", bob);
    stops.watch("r1", alice, "s1", { id: "carol" });
    expect(stopOf(first.signal.reason).detail).toBe("stopped by bob");
  });

  it("does not forget a resumed run when the ended run's handle is disposed again", async () => {
    const stops = createRunStops({ store: mapStore(), shared: false, logger: silentLogger, ttlMs: 60_000 });
    const ended = stops.watch("r1", alice, "s1");
    ended.dispose();
    const resumed = stops.watch("r1", alice, "s2");
    ended.dispose();
    expect(await stops.request("r1", bob, anyone)).toEqual({ kind: "stopping" });
    expect(resumed.signal.aborted).toBe(true);
  });

  it("answers not_running for a run no process of a shared store knows", async () => {
    const stops = createRunStops({ store: mapStore(), shared: true, logger: silentLogger, ttlMs: 60_000 });
    expect(await stops.request("nobody", bob, anyone)).toEqual({ kind: "not_running" });
  });

  it("writes a resumed run's record after every delete of its ended runs, however their deletes interleave", async () => {
    const inner = mapStore();
    const gates: Array<() => void> = [];
    const store: KeyValueStore = {
      ...inner,
      delete: (key) => new Promise((resolve) => gates.push(() => resolve(inner.delete(key)))),
    };
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    const stops = createRunStops({ store, shared: true, logger: silentLogger, ttlMs: 60_000 });
    stops.watch("r1", alice, "s1").dispose(); // its delete waits
    await turn();
    stops.watch("r1", alice, "s2").dispose(); // a second delete waits behind the first one's end
    await turn();
    gates[0]?.();
    await turn();
    stops.watch("r1", alice, "s3");
    await turn();
    gates[1]?.();
    await turn();
    await turn();
    expect(inner.data.get("run:live:r1")).toMatchObject({ segment: "s3" });
    await stops.close();
  });
});
