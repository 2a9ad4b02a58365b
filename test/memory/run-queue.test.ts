import { describe, expect, it } from "vitest";
import { createRunQueue } from "../../src/memory/run-queue.js";

/** A promise the test settles by hand. */
function gate<T = void>(): { promise: Promise<T>; open: (value: T) => void; fail: (error: Error) => void } {
  let open!: (value: T) => void;
  let fail!: (error: Error) => void;
  const promise = new Promise<T>((resolve, reject) => {
    open = resolve;
    fail = reject;
  });
  return { promise, open, fail };
}

/** Lets every queued microtask and promise callback run. */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe("run queue", () => {
  it("runs tasks of one key one at a time, in arrival order", async () => {
    const queue = createRunQueue(8);
    const log: string[] = [];
    const gates = [gate(), gate(), gate()];
    const runs = gates.map((g, index) =>
      queue.run("conversation", async () => {
        log.push(`start ${index}`);
        await g.promise;
        log.push(`end ${index}`);
        return index;
      }),
    );
    await settle();
    expect(log).toEqual(["start 0"]);
    expect(queue.running).toBe(1);
    expect(queue.queued).toBe(2);
    gates[1]?.open();
    gates[2]?.open();
    await settle();
    expect(log).toEqual(["start 0"]);
    gates[0]?.open();
    expect(await Promise.all(runs)).toEqual([0, 1, 2]);
    expect(log).toEqual(["start 0", "end 0", "start 1", "end 1", "start 2", "end 2"]);
  });

  it("says a key is busy from its first task's submission until its last task settles", async () => {
    const queue = createRunQueue(8);
    const first = gate();
    const second = gate();
    expect(queue.busy("conversation")).toBe(false);
    const runs = [queue.run("conversation", () => first.promise), queue.run("conversation", () => second.promise)];
    expect(queue.busy("conversation")).toBe(true);
    expect(queue.busy("other")).toBe(false);
    first.open();
    await settle();
    expect(queue.busy("conversation")).toBe(true);
    second.open();
    await Promise.all(runs);
    expect(queue.busy("conversation")).toBe(false);
  });

  it("runs different keys in parallel up to the global cap", async () => {
    const queue = createRunQueue(2);
    const started: string[] = [];
    const gates = new Map(["a", "b", "c"].map((key) => [key, gate()]));
    const runs = [...gates].map(([key, g]) =>
      queue.run(key, async () => {
        started.push(key);
        await g.promise;
      }),
    );
    await settle();
    expect(started).toEqual(["a", "b"]);
    expect(queue.running).toBe(2);
    expect(queue.queued).toBe(1);
    gates.get("b")?.open();
    await settle();
    expect(started).toEqual(["a", "b", "c"]);
    gates.get("a")?.open();
    gates.get("c")?.open();
    await Promise.all(runs);
    expect(queue.running).toBe(0);
  });

  it("a task waiting for its key's turn holds no global slot", async () => {
    const queue = createRunQueue(2);
    const started: string[] = [];
    const busy = gate();
    const first = queue.run("busy", async () => {
      started.push("busy 1");
      await busy.promise;
    });
    const second = queue.run("busy", async () => {
      started.push("busy 2");
    });
    const other = queue.run("other", async () => {
      started.push("other");
    });
    await other;
    await settle();
    expect(started).toEqual(["busy 1", "other"]);
    expect(queue.running).toBe(1);
    expect(queue.queued).toBe(1);
    busy.open();
    await Promise.all([first, second]);
    expect(started).toEqual(["busy 1", "other", "busy 2"]);
  });

  it("a failing task rejects its own caller and does not block the next one", async () => {
    const queue = createRunQueue(1);
    const failing = queue.run("k", async () => {
      throw new Error("boom");
    });
    const throwingSynchronously = queue.run("k", () => {
      throw new Error("sync boom");
    });
    const next = queue.run("k", async () => "next ran");
    await expect(failing).rejects.toThrow("boom");
    await expect(throwingSynchronously).rejects.toThrow("sync boom");
    await expect(next).resolves.toBe("next ran");
  });

  it("loses no task when many arrive at once", async () => {
    const queue = createRunQueue(3);
    const seen: Record<string, number[]> = {};
    await Promise.all(
      Array.from({ length: 300 }, (_, index) => {
        const key = `k${index % 7}`;
        return queue.run(key, async () => {
          await settle();
          seen[key] ??= [];
          seen[key].push(index);
        });
      }),
    );
    expect(Object.values(seen).flat()).toHaveLength(300);
    for (const [key, indexes] of Object.entries(seen)) {
      expect(indexes, key).toEqual([...indexes].sort((a, b) => a - b));
    }
  });

  it("idle() resolves at once when empty and otherwise once everything has run", async () => {
    const queue = createRunQueue(2);
    await expect(queue.idle()).resolves.toBeUndefined();
    const g = gate();
    let done = false;
    void queue.run("a", () => g.promise);
    void queue.run("a", async () => {
      done = true;
    });
    let idle = false;
    const waiting = queue.idle().then(() => {
      idle = true;
    });
    await settle();
    expect(idle).toBe(false);
    g.open();
    await waiting;
    expect(done).toBe(true);
    expect(queue.running).toBe(0);
    expect(queue.queued).toBe(0);
  });

  it("refuses a cap that is not a whole number of at least 1", () => {
    expect(() => createRunQueue(0)).toThrow(RangeError);
    expect(() => createRunQueue(1.5)).toThrow(RangeError);
    expect(() => createRunQueue(Number.NaN)).toThrow(RangeError);
    expect(createRunQueue(Number.POSITIVE_INFINITY).running).toBe(0);
  });
});
