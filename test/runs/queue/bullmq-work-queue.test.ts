// The BullMQ work queue in one process against a real redis-server: order per conversation,
// parallel conversations, retries with backoff, giving up, bad input, depth, close, heartbeats.
import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import {
  conversationHash,
  decodeItem,
  deliverJobId,
  drainJobId,
  encodeItem,
  parseDrainJobId,
} from "../../../src/runs/queue/bullmq-codec.js";
import { createMailboxes } from "../../../src/runs/queue/bullmq-mailbox.js";
import type { BullmqWorkQueueOptions } from "../../../src/runs/queue/bullmq-work-queue.js";
import type { WorkHandler, WorkItem, WorkQueue } from "../../../src/runs/queue/work-queue.js";
import { describeWithRedis } from "../../support/redis-suite.js";
import { runItem, useBullmqQueues } from "../../support/bullmq-queues.js";

const queues = useBullmqQueues("unit");
let name = "";

const queue = (options: Partial<BullmqWorkQueueOptions> = {}): WorkQueue => queues.queue({ name, ...options });

/** A handler that records what it ran and resolves `until(n)` once n items finished. */
function recorder(work: (item: WorkItem, signal: AbortSignal) => Promise<void> = async () => {}) {
  const events: string[] = [];
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  let finished = 0;
  let running = 0;
  let maxRunning = 0;
  const handler: WorkHandler = async (item, signal) => {
    const id = item.kind === "run" ? item.intakeId : item.callId;
    events.push(`start ${id}`);
    running += 1;
    maxRunning = Math.max(maxRunning, running);
    try {
      await work(item, signal);
    } finally {
      running -= 1;
      events.push(`end ${id}`);
      finished += 1;
      for (const waiter of waiters.filter((entry) => entry.count <= finished)) waiter.resolve();
    }
  };
  const until = (count: number) => new Promise<void>((resolve) => (finished >= count ? resolve() : waiters.push({ count, resolve })));
  return { handler, events, until, maxRunning: () => maxRunning };
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe("BullMQ ids and items", () => {
  it("derives job ids without ':' that are never bare integers", () => {
    const hash = conversationHash("slack:T1:C1:1700000000.1");
    for (const id of [drainJobId(hash, "7"), deliverJobId(encodeItem(runItem("a:b", "c")))]) {
      expect(id).not.toContain(":");
      expect(Number.isInteger(Number(id))).toBe(false);
    }
    expect(parseDrainJobId(drainJobId(hash, "7"))).toEqual({ hash, generation: "7" });
    expect(parseDrainJobId("drain.x.1")).toBeUndefined();
  });

  it("refuses items that are not JSON or not a work item", () => {
    expect(decodeItem("{nope").kind).toBe("invalid");
    expect(decodeItem(JSON.stringify({ kind: "run", conversationKey: "" }))).toMatchObject({
      kind: "invalid",
      reason: expect.stringContaining("conversationKey"),
    });
    expect(decodeItem(encodeItem(runItem("c", "i")))).toEqual({ kind: "item", item: runItem("c", "i") });
  });
});

describeWithRedis("the BullMQ work queue in one process", () => {
  const fresh = () => {
    name = queues.name();
  };

  it("runs one conversation's items in order, one at a time, and other conversations alongside", async () => {
    fresh();
    const perConversation = new Map<string, number>();
    let overlap = false;
    const record = recorder(async (item) => {
      const now = (perConversation.get(item.conversationKey) ?? 0) + 1;
      perConversation.set(item.conversationKey, now);
      if (now > 1) overlap = true;
      await pause(20);
      perConversation.set(item.conversationKey, now - 1);
    });
    const work = queue();
    work.start(record.handler, 4);
    for (const index of [1, 2, 3])
      await Promise.all([work.add(runItem("a", `a${index}`)), work.add(runItem("b", `b${index}`)), work.add(runItem("c", `c${index}`))]);
    await record.until(9);

    expect(overlap).toBe(false);
    for (const key of ["a", "b", "c"])
      expect(record.events.filter((event) => event.endsWith(`${key}1`) || event.endsWith(`${key}2`) || event.endsWith(`${key}3`))).toEqual([
        `start ${key}1`,
        `end ${key}1`,
        `start ${key}2`,
        `end ${key}2`,
        `start ${key}3`,
        `end ${key}3`,
      ]);
    expect(record.maxRunning()).toBeGreaterThan(1);
  });

  it("retries a failing item with backoff while the conversation's next item waits", async () => {
    fresh();
    let failures = 2;
    const record = recorder(async (item) => {
      if (item.kind === "run" && item.intakeId === "first" && failures-- > 0) throw new Error("store unavailable");
    });
    const work = queue();
    work.start(record.handler, 2);
    await work.add(runItem("a", "first"));
    await work.add(runItem("a", "second"));
    await record.until(4);
    expect(record.events).toEqual([
      "start first",
      "end first",
      "start first",
      "end first",
      "start first",
      "end first",
      "start second",
      "end second",
    ]);
  });

  it("gives up an item that keeps failing after its attempts, and goes on with the next", async () => {
    fresh();
    const record = recorder(async (item) => {
      if (item.kind === "run" && item.intakeId === "poison") throw new Error("always");
    });
    const work = queue({ attempts: 3 });
    work.start(record.handler, 1);
    await work.add(runItem("a", "poison"));
    await work.add(runItem("a", "after"));
    await record.until(4);
    expect(record.events.filter((event) => event === "start poison")).toHaveLength(3);
    expect(record.events.at(-1)).toBe("end after");
    await expect.poll(() => work.depth()).toBe(0);
  });

  it("drops an unreadable item from a mailbox and handles the rest (the owner that pushed it left no drain job: the next add makes it)", async () => {
    fresh();
    const redis = new Redis(queues.url);
    await createMailboxes(redis, `${name}-mailbox`).push(conversationHash("a"), "{not json", "1");
    redis.disconnect();
    const record = recorder();
    const work = queue();
    await work.add(runItem("a", "good"));
    work.start(record.handler, 1);
    await record.until(1);
    expect(record.events).toEqual(["start good", "end good"]);
  });

  it("counts waiting, held-back and running items in depth()", async () => {
    fresh();
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    let starts = 0;
    let bothStarted: () => void = () => {};
    const running = new Promise<void>((resolve) => (bothStarted = resolve));
    const record = recorder(async () => {
      if (++starts === 2) bothStarted();
      await gate;
    });
    const work = queue();
    await work.add(runItem("a", "1"));
    await work.add(runItem("a", "2"));
    await work.add(runItem("b", "3"));
    await work.add({ kind: "expire", conversationKey: "a", runId: "r", callId: "c" }, { delayMs: 60_000 });
    expect(await work.depth()).toBe(4);
    work.start(record.handler, 2);
    await running;
    expect(await work.depth()).toBe(4);
    release();
    await record.until(3);
    await expect.poll(() => work.depth()).toBe(1);
  });

  it("on close stops taking items, aborts a running handler after the grace and leaves its items to another process", async () => {
    fresh();
    let started: () => void = () => {};
    const firstStarted = new Promise<void>((resolve) => (started = resolve));
    const first = recorder(
      (_item, signal) =>
        new Promise<void>((resolve) => {
          started();
          signal.addEventListener("abort", () => resolve(), { once: true });
        }),
    );
    const closing = queue();
    closing.start(first.handler, 2);
    await closing.add(runItem("a", "1"));
    await closing.add(runItem("a", "2"));
    await firstStarted;
    const began = Date.now();
    await closing.close(150);
    expect(Date.now() - began).toBeGreaterThanOrEqual(140);
    expect(first.events).toEqual(["start 1", "end 1"]);
    await expect(closing.add(runItem("a", "3"))).rejects.toThrow("closed");

    const second = recorder();
    queue().start(second.handler, 2);
    await second.until(2);
    expect(second.events).toEqual(["start 1", "end 1", "start 2", "end 2"]);
  });

  it("keeps a conversation while its handler runs longer than the lock (heartbeats), with another process waiting", async () => {
    fresh();
    const record = recorder(() => pause(1_500));
    const options = { lockDurationMs: 400, stalledIntervalMs: 200 };
    queue(options).start(record.handler, 1);
    queue(options).start(record.handler, 1);
    await queue(options).add(runItem("a", "long"));
    await record.until(1);
    await pause(500);
    expect(record.events).toEqual(["start long", "end long"]);
  });

  it("fires a held-back item once when it is due", async () => {
    fresh();
    const record = recorder();
    const work = queue();
    work.start(record.handler, 1);
    const expire: WorkItem = { kind: "expire", conversationKey: "a", runId: "r", callId: "c1" };
    await work.add(expire, { delayMs: 100 });
    await work.add(expire, { delayMs: 100 });
    await record.until(1);
    await pause(300);
    expect(record.events).toEqual(["start c1", "end c1"]);
  });
});
