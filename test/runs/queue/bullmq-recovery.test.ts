// How the BullMQ work queue finds its way back after a crash or a stall, against a real
// redis-server: a mailbox left with an owner and no drain job (a crash between the push and the
// add) is drained at the next add and, with no add, at the next start; a drain whose lock is
// lost mid-handler is aborted there and its item taken up again; a `failed` event that arrives
// after its mailbox has a new owner changes nothing; and the mailbox scripts refuse what a
// stale generation asks of them.
import { Worker } from "bullmq";
import type { Redis } from "ioredis";
import { expect, it } from "vitest";
import { conversationHash, encodeItem } from "../../../src/runs/queue/bullmq-codec.js";
import { createMailboxes, type Mailboxes } from "../../../src/runs/queue/bullmq-mailbox.js";
import type { BullmqWorkQueueOptions } from "../../../src/runs/queue/bullmq-work-queue.js";
import type { WorkHandler, WorkItem, WorkQueue } from "../../../src/runs/queue/work-queue.js";
import { capturingLogger } from "../../support/capturing-logger.js";
import { until } from "../../support/until.js";
import { describeWithRedis } from "../../support/redis-suite.js";
import { runItem, useBullmqQueues } from "../../support/bullmq-queues.js";

const queues = useBullmqQueues("recovery");

/** A queue name of its own per test, and the mailboxes under it as another process sees them. */
function fresh(): { name: string; mailboxes: Mailboxes; redis: Redis } {
  const name = queues.name();
  const redis = queues.client();
  return { name, redis, mailboxes: createMailboxes(redis, `${name}-mailbox`) };
}

const queue = (name: string, options: Partial<BullmqWorkQueueOptions> = {}): WorkQueue => queues.queue({ name, ...options });

/** Records each item's start and end; `ended(n)` resolves once n handlers returned. */
function recorder(work: (item: WorkItem, signal: AbortSignal) => Promise<void> = async () => {}) {
  const events: string[] = [];
  let finished = 0;
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  const handler: WorkHandler = async (item, signal) => {
    const id = item.kind === "run" ? item.intakeId : item.callId;
    events.push(`start ${id}`);
    try {
      await work(item, signal);
    } finally {
      events.push(signal.aborted ? `aborted ${id}` : `end ${id}`);
      finished += 1;
      for (const waiter of waiters.filter((entry) => entry.count <= finished)) waiter.resolve();
    }
  };
  const ended = (count: number) => new Promise<void>((resolve) => (finished >= count ? resolve() : waiters.push({ count, resolve })));
  return { handler, events, ended };
}

/** A promise and the function that settles it. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open: () => void = () => {};
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/**
 * Conversation "a" gets items 1 and 2; the drain holds item 1, the first time it has it, until it is
 * aborted. Resolves once it holds it and its lock expired as it does for a process that stalled past
 * it: renewing the lock fails. `ownerThen` is the mailbox's owner while it held it.
 */
async function drainThatLosesItsLock(options: Partial<BullmqWorkQueueOptions>) {
  const { name, redis, mailboxes } = fresh();
  const running = gate();
  const record = recorder(async (item, signal) => {
    if (item.kind !== "run" || item.intakeId !== "1" || record.events.filter((event) => event === "start 1").length > 1) return;
    running.open();
    await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
  });
  const work = queue(name, options);
  work.start(record.handler, 1);
  await work.add(runItem("a", "1"));
  await work.add(runItem("a", "2"));
  await running.promise;
  const [ownerThen] = await mailboxes.owners();
  const [lock] = await redis.keys(`bull:${name}:drain.*:lock`);
  expect(lock).toBeDefined();
  await redis.del(lock!);
  return { name, redis, mailboxes, ownerThen, record, work };
}

describeWithRedis("the mailbox scripts", () => {
  it("a push into an owned mailbox keeps its owner; only the owner takes items, and an empty mailbox frees it", async () => {
    const { mailboxes } = fresh();
    expect(await mailboxes.push("h", "one", "a1")).toBe("a1");
    expect(await mailboxes.push("h", "two", "b2")).toBe("a1");
    expect(await mailboxes.next("h", "b2")).toEqual({ kind: "lost" });
    expect(await mailboxes.next("h", "a1")).toEqual({ kind: "item", raw: "one" });
    expect(await mailboxes.count()).toBe(2);
    expect(await mailboxes.pop("h", "one")).toBe(true);
    expect(await mailboxes.pop("h", "two")).toBe(true);
    expect(await mailboxes.next("h", "a1")).toEqual({ kind: "empty" });
    await expect.poll(() => mailboxes.owners()).toEqual([]);
    expect(await mailboxes.push("h", "three", "c3")).toBe("c3");
  });

  it("a pop of an item that is no longer at the head removes nothing", async () => {
    const { mailboxes } = fresh();
    await mailboxes.push("h", "one", "a1");
    await mailboxes.push("h", "two", "a1");
    expect(await mailboxes.pop("h", "two")).toBe(false);
    expect(await mailboxes.pop("h", "one")).toBe(true);
    // A stalled drain that finished "one" late pops again: "two", not handled yet, stays.
    expect(await mailboxes.pop("h", "one")).toBe(false);
    expect(await mailboxes.count()).toBe(1);
    expect(await mailboxes.next("h", "a1")).toEqual({ kind: "item", raw: "two" });
  });

  it("a rotation asked by a generation that no longer owns the mailbox changes nothing", async () => {
    const { mailboxes } = fresh();
    await mailboxes.push("h", "one", "a1");
    expect(await mailboxes.rotate("h", "a1", "b2")).toBe(true);
    expect(await mailboxes.rotate("h", "a1", "c3")).toBe(false);
    expect(await mailboxes.owners()).toEqual([{ hash: "h", generation: "b2" }]);
    expect(await mailboxes.next("h", "a1")).toEqual({ kind: "lost" });
    expect(await mailboxes.next("h", "b2")).toEqual({ kind: "item", raw: "one" });
  });
  it("lists every owned mailbox, past the first page of a scan", async () => {
    const { mailboxes } = fresh();
    const hashes = Array.from({ length: 1_200 }, (_, index) => `h${index}`);
    await Promise.all(hashes.map((hash) => mailboxes.push(hash, "one", `g-${hash}`)));
    const owners = await mailboxes.owners();
    expect(owners).toHaveLength(hashes.length);
    expect(new Map(owners.map((owner) => [owner.hash, owner.generation]))).toEqual(new Map(hashes.map((hash) => [hash, `g-${hash}`])));
  });

  it("leaves out a mailbox whose owner went away between the scan and the read", async () => {
    const { name, redis } = fresh();
    const prefix = `${name}-mailbox`;
    // The mailbox's drain frees it (empty) at the moment the listing reads the owners it found.
    const racing = new Proxy(redis, {
      get(target, property, receiver) {
        if (property === "mget")
          return async (...keys: string[]) => {
            await target.del(`${prefix}:owner:gone`);
            return target.mget(...keys);
          };
        return Reflect.get(target, property, receiver);
      },
    });
    const mailboxes = createMailboxes(racing, prefix);
    await mailboxes.push("gone", "one", "a1");
    await mailboxes.push("kept", "two", "b2");
    expect(await mailboxes.owners()).toEqual([{ hash: "kept", generation: "b2" }]);
  });
});

describeWithRedis("a mailbox left with an owner and no drain job (a crash between the push and the add)", () => {
  it("is drained, in order, at the next add to its conversation, with no restart", async () => {
    const { name, mailboxes } = fresh();
    const record = recorder();
    const work = queue(name);
    work.start(record.handler, 2);
    // Two items through first: the start's look for such mailboxes is over before the crash below.
    await work.add(runItem("other", "warm-1"));
    await record.ended(1);
    await work.add(runItem("other", "warm-2"));
    await record.ended(2);
    await mailboxes.push(conversationHash("a"), encodeItem(runItem("a", "orphan")), "dead01");
    await work.add(runItem("a", "later"));
    await record.ended(4);
    expect(record.events.slice(4)).toEqual(["start orphan", "end orphan", "start later", "end later"]);
  });

  it("is drained at the next start when nothing more is added", async () => {
    const { name, mailboxes } = fresh();
    await mailboxes.push(conversationHash("a"), encodeItem(runItem("a", "orphan-1")), "dead02");
    await mailboxes.push(conversationHash("a"), encodeItem(runItem("a", "orphan-2")), "dead02");
    const record = recorder();
    queue(name).start(record.handler, 1);
    await record.ended(2);
    expect(record.events).toEqual(["start orphan-1", "end orphan-1", "start orphan-2", "end orphan-2"]);
    await expect.poll(() => mailboxes.count()).toBe(0);
  });
});

describeWithRedis("a drain that loses its conversation mid-handler", () => {
  it("is aborted when its lock can't be renewed, and the item is taken up again, once, before the next", async () => {
    const options = { lockDurationMs: 600, stalledIntervalMs: 200 };
    const { name, record } = await drainThatLosesItsLock(options);
    await record.ended(1);
    expect(record.events).toEqual(["start 1", "aborted 1"]);
    // Another process finds the job stalled and goes on from the item that was cut short.
    queue(name, options).start(record.handler, 1);
    await record.ended(3);
    expect(record.events).toEqual(["start 1", "aborted 1", "start 1", "end 1", "start 2", "end 2"]);
  });

  it("stalled with no stall allowed, its job fails; the conversation goes on under a new owner, each item ending once", async () => {
    const options = { lockDurationMs: 600, stalledIntervalMs: 200, maxStalledCount: 0 };
    const { name, redis, mailboxes, ownerThen, record } = await drainThatLosesItsLock(options);
    queue(name, options).start(record.handler, 1);
    await record.ended(3);
    expect(record.events).toEqual(["start 1", "aborted 1", "start 1", "end 1", "start 2", "end 2"]);
    expect(await redis.zcard(`bull:${name}:failed`)).toBe(1);
    expect(ownerThen).toBeDefined();
    await expect.poll(() => mailboxes.owners()).toEqual([]);
  });

  it("whose job failed while no process listened is taken up at the next start", async () => {
    const options = { lockDurationMs: 600, stalledIntervalMs: 200, maxStalledCount: 0 };
    const { name, redis, record, work: first } = await drainThatLosesItsLock(options);
    await record.ended(1);
    await first.close(0);
    // A plain BullMQ worker, with nothing of ours listening to its events, fails the job that lost its lock.
    const plain = new Worker(name, async () => {}, { connection: queues.client(), maxStalledCount: 0, stalledInterval: 100 });
    queues.cleanup(() => plain.close());
    await until(async () => (await redis.zcard(`bull:${name}:failed`)) === 1, "the stalled job to fail");
    await plain.close();
    queue(name, options).start(record.handler, 1);
    await record.ended(3);
    expect(record.events).toEqual(["start 1", "aborted 1", "start 1", "end 1", "start 2", "end 2"]);
  });

  it("a `failed` event that arrives after its mailbox has a new owner leaves the owner and its drain alone", async () => {
    const { name, redis, mailboxes } = fresh();
    const { logger, lines } = capturingLogger();
    const release = gate();
    const started = gate();
    const record = recorder(async (item) => {
      if (item.kind === "run" && item.intakeId === "1") {
        started.open();
        await release.promise;
      }
    });
    const work = queue(name, { logger });
    work.start(record.handler, 4);
    await work.add(runItem("a", "1"));
    await work.add(runItem("a", "2"));
    await started.promise;
    const [owner] = await mailboxes.owners();
    const hash = conversationHash("a");
    expect(owner?.hash).toBe(hash);
    // The failure of an earlier generation of this mailbox, delivered late (as BullMQ publishes it).
    const stale = `drain.${hash}.${"0".repeat(31)}1`;
    const heard = () => lines.some((line) => line.jobId === stale && /a drain job failed/.test(line.msg));
    await until(async () => {
      if (!heard()) await redis.xadd(`bull:${name}:events`, "*", "event", "failed", "jobId", stale, "failedReason", "stalled");
      return heard();
    }, "the work queue hearing the late failed event");
    expect(await mailboxes.owners()).toEqual([owner]);
    release.open();
    await record.ended(2);
    expect(record.events).toEqual(["start 1", "end 1", "start 2", "end 2"]);
    await expect.poll(() => mailboxes.owners()).toEqual([]);
  });
});
