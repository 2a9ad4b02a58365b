// How often stop requests are polled (src/runs/worker/run-stops.ts), on a fake clock: never for a store
// this process owns, once per period however many runs are watched, and not at all once the
// last watched run ended.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { silentLogger } from "../../../src/logger.js";
import type { KeyValueStore } from "../../../src/memory/types.js";
import { createRunStops } from "../../../src/runs/worker/run-stops.js";
import { mapStore } from "../../support/map-store.js";

const POLL_MS = 20;
const alice = { id: "alice" };

function countedStore(): { store: KeyValueStore; polls: () => number } {
  const inner = mapStore();
  let polls = 0;
  return {
    polls: () => polls,
    store: {
      ...inner,
      get: (key) => {
        if (key === "run:stops:latest") polls += 1;
        return inner.get(key);
      },
    },
  };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("stop polls", () => {
  it("never polls a store this process owns", async () => {
    const { store, polls } = countedStore();
    const stops = createRunStops({ store, shared: false, logger: silentLogger, ttlMs: 60_000, pollMs: POLL_MS });
    stops.watch("r1", alice, "s1");
    await vi.advanceTimersByTimeAsync(10 * POLL_MS);
    expect(polls()).toBe(0);
    await stops.close();
  });

  it("polls once a period however many runs are watched", async () => {
    const { store, polls } = countedStore();
    const stops = createRunStops({ store, shared: true, logger: silentLogger, ttlMs: 60_000, pollMs: POLL_MS });
    for (let index = 0; index < 10; index++) stops.watch(`r${index}`, alice, "s1");
    await vi.advanceTimersByTimeAsync(10 * POLL_MS);
    expect(polls()).toBeGreaterThanOrEqual(5);
    expect(polls()).toBeLessThanOrEqual(10);
    await stops.close();
  });

  it("stops polling once the last watched run ended", async () => {
    const { store, polls } = countedStore();
    const stops = createRunStops({ store, shared: true, logger: silentLogger, ttlMs: 60_000, pollMs: POLL_MS });
    stops.watch("r1", alice, "s1").dispose();
    await vi.advanceTimersByTimeAsync(10 * POLL_MS);
    expect(polls()).toBeLessThanOrEqual(1);
    await stops.close();
  });
});
