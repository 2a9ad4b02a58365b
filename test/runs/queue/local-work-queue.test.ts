import { describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/logger.js";
import { createLocalWorkQueue } from "../../../src/runs/queue/local-work-queue.js";
import type { WorkItem } from "../../../src/runs/queue/work-queue.js";

function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const run = (conversationKey: string, intakeId: string): WorkItem => ({ kind: "run", conversationKey, intakeId });

describe("in-process work queue", () => {
  it("runs items of one conversation one at a time, in the order added", async () => {
    const queue = createLocalWorkQueue(silentLogger);
    const log: string[] = [];
    const gates = new Map(["1", "2", "3"].map((id) => [id, gate()]));
    queue.start(async (item) => {
      const id = item.kind === "run" ? item.intakeId : "";
      log.push(`start ${id}`);
      await gates.get(id)?.promise;
      log.push(`end ${id}`);
    }, 8);
    for (const id of ["1", "2", "3"]) await queue.add(run("c", id));
    await settle();
    expect(log).toEqual(["start 1"]);
    expect(await queue.depth()).toBe(3);
    gates.get("3")?.open();
    gates.get("2")?.open();
    await settle();
    expect(log).toEqual(["start 1"]);
    gates.get("1")?.open();
    await settle();
    await settle();
    expect(log).toEqual(["start 1", "end 1", "start 2", "end 2", "start 3", "end 3"]);
    expect(await queue.depth()).toBe(0);
  });

  it("never runs more than its concurrency at once, and a waiting conversation holds no slot", async () => {
    const queue = createLocalWorkQueue(silentLogger);
    const gates = new Map<string, ReturnType<typeof gate>>();
    const started: string[] = [];
    let running = 0;
    let most = 0;
    queue.start(async (item) => {
      const id = item.kind === "run" ? item.intakeId : "";
      started.push(id);
      running += 1;
      most = Math.max(most, running);
      const g = gate();
      gates.set(id, g);
      await g.promise;
      running -= 1;
    }, 2);
    await queue.add(run("a", "a1"));
    await queue.add(run("a", "a2"));
    await queue.add(run("b", "b1"));
    await queue.add(run("c", "c1"));
    await settle();
    expect(started).toEqual(["a1", "b1"]);
    expect(queue.running).toBe(2);
    gates.get("b1")?.open();
    await settle();
    expect(started).toEqual(["a1", "b1", "c1"]);
    gates.get("a1")?.open();
    await settle();
    gates.get("c1")?.open();
    await settle();
    gates.get("a2")?.open();
    await settle();
    expect(started).toEqual(["a1", "b1", "c1", "a2"]);
    expect(most).toBe(2);
  });

  it("holds a delayed item back, and a handler's rejection does not stop the conversation", async () => {
    const queue = createLocalWorkQueue(silentLogger);
    const seen: string[] = [];
    const done = gate();
    queue.start(async (item) => {
      seen.push(item.kind);
      if (item.kind === "run") throw new Error("boom");
      done.open();
    }, 1);
    await queue.add({ kind: "expire", conversationKey: "c", runId: "r", callId: "k" }, { delayMs: 30 });
    await queue.add(run("c", "1"));
    await settle();
    expect(seen).toEqual(["run"]);
    await done.promise;
    expect(seen).toEqual(["run", "expire"]);
    await queue.close(100);
  });

  it("tries an item whose handler rejected again, with backoff, until it settles", async () => {
    const queue = createLocalWorkQueue(silentLogger);
    let tries = 0;
    const done = gate();
    queue.start(async () => {
      tries += 1;
      if (tries < 3) throw new Error("store down");
      done.open();
    }, 1);
    await queue.add(run("c", "1"));
    await done.promise;
    expect(tries).toBe(3);
    await queue.close(100);
  });

  it("on close starts nothing more, aborts running handlers after the grace, and waits for them", async () => {
    const queue = createLocalWorkQueue(silentLogger);
    const started: string[] = [];
    queue.start(async (item, signal) => {
      started.push(item.kind === "run" ? item.intakeId : "");
      await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve()));
    }, 1);
    await queue.add(run("a", "1"));
    await queue.add(run("b", "2"));
    await queue.add({ kind: "expire", conversationKey: "c", runId: "r", callId: "k" }, { delayMs: 10 });
    await settle();
    await queue.close(20);
    expect(started).toEqual(["1"]);
    await queue.add(run("d", "3"));
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(started).toEqual(["1"]);
  });

  it("lets a hundred running handlers listen for the shutdown without a listener-leak warning, and aborts them all", async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on("warning", onWarning);
    try {
      const queue = createLocalWorkQueue(silentLogger);
      let aborted = 0;
      queue.start(async (_item, signal) => {
        await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
        aborted += 1;
      }, 100);
      for (let index = 0; index < 100; index++) await queue.add(run(`c${index}`, String(index)));
      await settle();
      expect(queue.running).toBe(100);
      await queue.close(10);
      expect(aborted).toBe(100);
      await settle();
      expect(warnings.map((warning) => warning.name)).not.toContain("MaxListenersExceededWarning");
    } finally {
      process.off("warning", onWarning);
    }
  });

  it("refuses a concurrency that is not a whole number of at least 1", () => {
    expect(() => createLocalWorkQueue(silentLogger).start(async () => {}, 0)).toThrow(/at least 1/);
    expect(() => createLocalWorkQueue(silentLogger).start(async () => {}, Number.POSITIVE_INFINITY)).toThrow(/at least 1/);
  });
});
