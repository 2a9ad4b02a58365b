// Stop requests (src/runs/worker/run-stops.ts) against a real SQLite store: a process that owns its store
// keeps stops in memory (no store work per run, one write per Stop); with a shared store a stop asked on another
// process arrives at the next poll, a poll reads one key however many runs are in flight, a
// stop left from before a pause does not stop the resumed run, and a replay of a stopped part
// of a run starts stopped.
import { mkdtempSync } from "node:fs";
import type { StopSignal } from "../../../src/agent/loop/loop-types.js";
import type { Person } from "../../../src/contracts/types.js";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/logger.js";
import { openStore } from "../../../src/memory/keyv-store.js";
import type { KeyValueStore } from "../../../src/memory/types.js";
import { createRunStops, type RunStops } from "../../../src/runs/worker/run-stops.js";

const alice = { id: "alice", name: "Alice" };
/** The authority's rule for Stop, as the service hands it over: the requester, or an approver. */
const mayStop = (by: Person, approver: boolean) => (requester: Person) => approver || requester.id === by.id;
const POLL_MS = 20;

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** A real SQLite store that records every key read, written and deleted. */
async function recordedStore(): Promise<{ store: KeyValueStore; reads: string[]; writes: string[] }> {
  const inner = await openStore(`sqlite://${join(mkdtempSync(join(tmpdir(), "run-stops-")), "bot.sqlite")}`, silentLogger);
  cleanup.push(() => inner.close());
  const reads: string[] = [];
  const writes: string[] = [];
  const store: KeyValueStore = {
    ...inner,
    get: (key) => {
      reads.push(key);
      return inner.get(key);
    },
    set: (key, value, ttlMs) => {
      writes.push(key);
      return inner.set(key, value, ttlMs);
    },
    delete: (key) => {
      writes.push(key);
      return inner.delete(key);
    },
  };
  return { store, reads, writes };
}

function stopsOn(store: KeyValueStore, shared: boolean): RunStops {
  const stops = createRunStops({ store, shared, logger: silentLogger, ttlMs: 60_000, pollMs: POLL_MS });
  cleanup.push(() => stops.close());
  return stops;
}

const aborted = (signal: StopSignal) =>
  new Promise<unknown>((resolve) => signal.addEventListener("abort", () => resolve(signal.reason), { once: true }));
const polls = (count: number) => new Promise((resolve) => setTimeout(resolve, POLL_MS * count));

describe("stops on a store this process owns", () => {
  it("stops a run here at once, refuses anyone else, and touches the store only to record the stop", async () => {
    const { store, reads, writes } = await recordedStore();
    const stops = stopsOn(store, false);
    const watch = stops.watch("run-1", alice, "message");
    expect(await stops.request("run-1", { id: "mallory" }, mayStop({ id: "mallory" }, false))).toEqual({
      kind: "not_allowed",
      requester: alice,
    });
    expect(watch.signal.aborted).toBe(false);
    expect([...reads, ...writes]).toEqual([]);
    expect(await stops.request("run-1", { id: "boss", name: "Boss" }, mayStop({ id: "boss", name: "Boss" }, true))).toEqual({
      kind: "stopping",
    });
    expect(watch.signal.reason).toMatchObject({ guard: "stopped", sentence: "Stopped by Boss." });
    watch.dispose();
    expect(await stops.request("run-1", alice, mayStop(alice, false))).toEqual({ kind: "not_running" });
    expect({ reads, writes }).toEqual({ reads: [], writes: ["run:stopped:run-1"] });
  });

  it("a replay of a stopped part of a run starts stopped; another part of it (a resume after a decision) does not", async () => {
    const { store } = await recordedStore();
    const first = stopsOn(store, false);
    const watch = first.watch("run-5", alice, "message");
    expect(await first.request("run-5", { id: "boss", name: "Boss" }, mayStop({ id: "boss", name: "Boss" }, true))).toEqual({
      kind: "stopping",
    });
    watch.dispose();
    await first.close();

    const next = stopsOn(store, false);
    const stoppedBy = await next.stoppedBefore("run-5", "message");
    expect(stoppedBy).toEqual({ id: "boss", name: "Boss" });
    expect(next.watch("run-5", alice, "message", stoppedBy).signal.reason).toMatchObject({ sentence: "Stopped by Boss." });
    expect(await next.stoppedBefore("run-5", "call_7")).toBeUndefined();
    expect(await next.stoppedBefore("run-6", "message")).toBeUndefined();
  });

  it("tells each listener of the run's signal once, function or object, and not one that was removed", async () => {
    const { store } = await recordedStore();
    const stops = stopsOn(store, false);
    const watch = stops.watch("run-3", alice, "message");
    const heard: string[] = [];
    const removed = { handleEvent: () => heard.push("removed") };
    watch.signal.addEventListener("abort", () => heard.push("function"));
    watch.signal.addEventListener("abort", { handleEvent: () => heard.push("object") });
    watch.signal.addEventListener("abort", removed);
    watch.signal.removeEventListener("abort", removed);
    expect(await stops.request("run-3", alice, mayStop(alice, false))).toEqual({ kind: "stopping" });
    expect(await stops.request("run-3", alice, mayStop(alice, false))).toEqual({ kind: "stopping" });
    expect(heard).toEqual(["function", "object"]);
    watch.dispose();
  });
});

describe("stops on a shared store", () => {
  it("a stop asked on another process arrives at the running process's next poll", async () => {
    const { store } = await recordedStore();
    const running = stopsOn(store, true);
    const other = stopsOn(store, true);
    const watch = running.watch("run-2", alice, "message");
    await polls(2);
    expect(await other.request("run-2", { id: "mallory" }, mayStop({ id: "mallory" }, false))).toEqual({
      kind: "not_allowed",
      requester: alice,
    });
    expect(await other.request("run-2", alice, mayStop(alice, false))).toEqual({ kind: "stopping" });
    expect(await aborted(watch.signal)).toMatchObject({ guard: "stopped", sentence: "Stopped by Alice." });
  });

  it("a poll reads one key while nobody asks for a stop, however many runs are in flight", async () => {
    const { store, reads } = await recordedStore();
    const stops = stopsOn(store, true);
    for (let index = 0; index < 50; index++) stops.watch(`run-${index}`, alice, "message");
    await polls(5);
    expect(reads.length).toBeGreaterThanOrEqual(2);
    expect(new Set(reads)).toEqual(new Set(["run:stops:latest"]));
  });

  it("a stop asked on another process is recorded for a replay of the part of the run it stopped", async () => {
    const { store } = await recordedStore();
    const running = stopsOn(store, true);
    const other = stopsOn(store, true);
    running.watch("run-7", alice, "call_2");
    await polls(1);
    expect(await other.request("run-7", alice, mayStop(alice, false))).toEqual({ kind: "stopping" });
    expect(await stopsOn(store, true).stoppedBefore("run-7", "call_2")).toEqual(alice);
  });

  it("a stop left after the run paused does not stop it when it resumes", async () => {
    const { store } = await recordedStore();
    const running = stopsOn(store, true);
    const other = stopsOn(store, true);
    const first = running.watch("run-3", alice, "message");
    await polls(1);
    // The click is taken on another process just as the run pauses here.
    expect(await other.request("run-3", alice, mayStop(alice, false))).toEqual({ kind: "stopping" });
    first.dispose();
    await running.close();
    const resumed = stopsOn(store, true).watch("run-3", alice, "message");
    await polls(4);
    expect(resumed.signal.aborted).toBe(false);
  });

  it("clears a finished run's record without making the run wait, and close waits for it", async () => {
    const { store } = await recordedStore();
    const stops = stopsOn(store, true);
    const watch = stops.watch("run-4", alice, "message");
    await polls(1);
    expect(await store.get("run:live:run-4")).toEqual({ requester: alice, segment: "message" });
    expect(watch.dispose()).toBeUndefined();
    await stops.close();
    expect(await store.get("run:live:run-4")).toBeUndefined();
  });
});
