// The rate-limited "show the newest text" writer both chat adapters use for status lines,
// progress edits and traces.
import { afterEach, describe, expect, it, vi } from "vitest";
import { createThrottledWriter } from "../../../src/adapters/core/throttled-writer.js";

/** A clock and a sleep the test drives: sleeping moves the clock, unless the sleep is cut short. */
function manualTime() {
  let now = 0;
  const sleeps: number[] = [];
  return {
    now: () => now,
    sleeps,
    advance: (ms: number) => (now += ms),
    sleep: async (ms: number) => {
      sleeps.push(ms);
      now += ms;
    },
  };
}

function recorder(time = manualTime()) {
  const writes: Array<{ text: string; at: number }> = [];
  const writer = createThrottledWriter<string>(
    async (text) => {
      writes.push({ text, at: time.now() });
    },
    { minIntervalMs: 1_000, now: time.now, sleep: time.sleep, onError: () => {} },
  );
  return { writer, writes, time };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("createThrottledWriter", () => {
  it("writes the first text at once and coalesces the rest to one write per interval", async () => {
    const { writer, writes, time } = recorder();
    writer.push("a");
    writer.push("b");
    writer.push("c");
    await vi.waitFor(() => expect(writes).toHaveLength(2));
    writer.push("d");
    await vi.waitFor(() => expect(writes).toHaveLength(3));
    expect(writes.map((w) => w.text)).toEqual(["a", "c", "d"]);
    expect(time.sleeps).toEqual([1_000, 1_000]);
    for (let i = 1; i < writes.length; i++) expect(writes[i]!.at - writes[i - 1]!.at).toBeGreaterThanOrEqual(1_000);
  });

  it("does not wait when the interval already passed", async () => {
    const { writer, writes, time } = recorder();
    writer.push("a");
    await writer.flush();
    time.advance(5_000);
    writer.push("b");
    await writer.flush();
    expect(writes.map((w) => w.text)).toEqual(["a", "b"]);
    expect(time.sleeps).toEqual([]);
  });

  it("merges what waits with the given merge, and can drop it", async () => {
    const written: string[][] = [];
    const throttle = createThrottledWriter<string[]>(
      async (value) => {
        written.push(value);
      },
      { minIntervalMs: 1_000, merge: (waiting, next) => [...waiting, ...next], sleep: async () => {}, onError: () => {} },
    );
    throttle.push(["a"]);
    throttle.push(["b"]);
    throttle.push(["c"]);
    await throttle.flush();
    throttle.push(["d"]);
    throttle.discard();
    await throttle.flush();
    expect(written).toEqual([["a"], ["b", "c"]]);
  });

  it("reports a failed write and keeps going", async () => {
    const errors: unknown[] = [];
    let calls = 0;
    const writer = createThrottledWriter<string>(
      async () => {
        calls += 1;
        if (calls === 1) throw new Error("boom");
      },
      { minIntervalMs: 0, onError: (error) => errors.push(error) },
    );
    writer.push("a");
    await writer.flush();
    writer.push("b");
    await writer.flush();
    expect(calls).toBe(2);
    expect(errors).toHaveLength(1);
  });

  it("flush writes what waits at once instead of waiting out the interval", async () => {
    vi.useFakeTimers();
    const written: string[] = [];
    const writer = createThrottledWriter<string>(async (text) => void written.push(text), { minIntervalMs: 60_000, onError: () => {} });
    writer.push("first");
    await vi.advanceTimersByTimeAsync(0);
    writer.push("last");
    // Only the flush can end the wait: no timer is ever advanced past it.
    await writer.flush();
    expect(written).toEqual(["first", "last"]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("discard ends a wait, so a flush after it resolves at once", async () => {
    vi.useFakeTimers();
    const written: string[] = [];
    const writer = createThrottledWriter<string>(async (text) => void written.push(text), { minIntervalMs: 60_000, onError: () => {} });
    writer.push("first");
    await vi.advanceTimersByTimeAsync(0);
    writer.push("dropped");
    writer.discard();
    await writer.flush();
    expect(written).toEqual(["first"]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("close drops what waits, ignores later pushes and waits for the write under way", async () => {
    let release: () => void = () => {};
    const written: string[] = [];
    const writer = createThrottledWriter<string>(
      (text) =>
        new Promise<void>((resolve) => {
          written.push(text);
          release = resolve;
        }),
      { minIntervalMs: 1_000, onError: () => {} },
    );
    writer.push("first");
    writer.push("second");
    let closed = false;
    const closing = writer.close().then(() => (closed = true));
    await Promise.resolve();
    expect(closed).toBe(false);
    release();
    await closing;
    writer.push("after close");
    await writer.flush();
    expect(written).toEqual(["first"]);
  });

  it("writes with real timers at most once per interval and always ends on the newest text", async () => {
    vi.useFakeTimers();
    const shown: Array<[number, string]> = [];
    const writer = createThrottledWriter<string>(async (text) => void shown.push([Date.now(), text]), {
      minIntervalMs: 1_000,
      onError: () => {},
    });
    const start = Date.now();
    writer.push("a");
    writer.push("b");
    await vi.advanceTimersByTimeAsync(10);
    writer.push("c");
    await vi.advanceTimersByTimeAsync(2_500);
    expect(shown.map(([, text]) => text)).toEqual(["a", "c"]);
    expect(shown[0]![0]).toBe(start);
    expect(shown[1]![0] - shown[0]![0]).toBe(1_000);
  });
});
