// Guards of the BullMQ work queue against a real redis-server: an interrupted handler keeps its
// item first in line, a closed queue refuses adds, a queue starts once, and a producer-only
// process (consume: false) leaves every item to the consumers, a finished drain job leaves nothing
// behind, and a job with a malformed id or an unreadable held item is dropped, not failed.
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { expect, it } from "vitest";
import { conversationHash, deliverJobId, encodeItem } from "../../../src/runs/queue/bullmq-codec.js";
import { createMailboxes } from "../../../src/runs/queue/bullmq-mailbox.js";
import type { BullmqWorkQueueOptions } from "../../../src/runs/queue/bullmq-work-queue.js";
import type { ItemEnd, WorkItem, WorkQueue } from "../../../src/runs/queue/work-queue.js";
import { describeWithRedis } from "../../support/redis-suite.js";
import { runItem, useBullmqQueues } from "../../support/bullmq-queues.js";

const queues = useBullmqQueues("guards");

const queue = (name: string, options: Partial<BullmqWorkQueueOptions> = {}): WorkQueue => queues.queue({ name, ...options });
const idOf = (item: WorkItem) => (item.kind === "run" ? item.intakeId : item.callId);

/** Records the ids it ran; `until(n)` resolves once n calls ended. */
function recorder(end: (id: string, seen: number) => ItemEnd = () => "done") {
  const ran: string[] = [];
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  const handler = async (item: WorkItem): Promise<ItemEnd> => {
    const id = idOf(item);
    ran.push(id);
    const result = end(id, ran.filter((known) => known === id).length);
    queueMicrotask(() => {
      for (const waiter of waiters.filter((entry) => entry.count <= ran.length)) waiter.resolve();
    });
    return result;
  };
  const until = (count: number) => new Promise<void>((resolve) => (ran.length >= count ? resolve() : waiters.push({ count, resolve })));
  return { handler, ran, until };
}

describeWithRedis("the BullMQ work queue's guards", () => {
  const fresh = queues.name;

  it("runs an interrupted item again before the conversation's next one", async () => {
    const record = recorder((id, seen) => (id === "first" && seen === 1 ? "interrupted" : "done"));
    const work = queue(fresh());
    work.start(record.handler, 1);
    await work.add(runItem("a", "first"));
    await work.add(runItem("a", "second"));
    await record.until(3);
    expect(record.ran).toEqual(["first", "first", "second"]);
  });

  it("refuses an add once it is closed", async () => {
    const work = queue(fresh());
    await work.close(0);
    await expect(work.add(runItem("a", "late"))).rejects.toThrow("the work queue is closed");
  });

  it("starts once", () => {
    const work = queue(fresh());
    work.start(recorder().handler, 1);
    expect(() => work.start(recorder().handler, 1)).toThrow("the work queue was already started");
  });

  it("leaves every item of a producer-only process (consume: false) to the consumers", async () => {
    const name = fresh();
    const producing = recorder();
    const producer = queue(name, { consume: false });
    producer.start(producing.handler, 1);
    const consuming = recorder();
    for (const index of [1, 2, 3]) await producer.add(runItem(`c${index}`, `i${index}`));
    queue(name).start(consuming.handler, 1);
    await consuming.until(3);
    expect(producing.ran).toEqual([]);
    expect([...consuming.ran].sort()).toEqual(["i1", "i2", "i3"]);
  }, 15_000);

  /** The state of a job in `queueName`, read with a connection of the test's own. */
  async function jobState(queueName: string, jobId: string): Promise<string> {
    const connection = new Redis(queues.url, { maxRetriesPerRequest: null });
    const inspected = new Queue(queueName, { connection });
    try {
      return await inspected.getJobState(jobId);
    } finally {
      await inspected.close();
      connection.disconnect();
    }
  }

  async function addRaw(queueName: string, jobName: string, data: object, jobId: string): Promise<void> {
    const connection = new Redis(queues.url, { maxRetriesPerRequest: null });
    const raw = new Queue(queueName, { connection });
    await raw.add(jobName, data, { jobId });
    await raw.close();
    connection.disconnect();
  }

  it("keeps no finished drain job in Redis", async () => {
    const name = fresh();
    const record = recorder();
    const work = queue(name);
    work.start(record.handler, 1);
    await work.add(runItem("a", "only"));
    await record.until(1);
    const connection = new Redis(queues.url, { maxRetriesPerRequest: null });
    const inspected = new Queue(name, { connection });
    await expect.poll(() => inspected.getJobCounts("active", "completed")).toEqual({ active: 0, completed: 0 });
    await inspected.close();
    connection.disconnect();
  });

  it("drops a drain job whose id is malformed instead of failing it", async () => {
    const name = fresh();
    await addRaw(name, "drain", {}, "not-a-drain-id");
    const record = recorder();
    const work = queue(name);
    work.start(record.handler, 1);
    await work.add(runItem("a", "after"));
    await record.until(1);
    expect(await jobState(name, "not-a-drain-id")).toBe("completed"); // added by hand, so kept once done; failed under a throw
  });

  it("drops an unreadable held-back item instead of failing its job", async () => {
    const name = fresh();
    await addRaw(`${name}-held`, "deliver", { item: "not an item" }, "held-junk");
    const record = recorder();
    const work = queue(name);
    work.start(record.handler, 1);
    await work.add(runItem("a", "held"), { delayMs: 1 });
    await record.until(1);
    expect(await jobState(`${name}-held`, "held-junk")).toBe("completed"); // likewise
  });

  it("never hands an unreadable mailbox item to the handler", async () => {
    const name = fresh();
    const connection = new Redis(queues.url, { maxRetriesPerRequest: null });
    await createMailboxes(connection, `${name}-mailbox`).push(conversationHash("a"), "{not json", "1");
    connection.disconnect();
    const handed: unknown[] = [];
    let handled: () => void = () => undefined;
    const done = new Promise<void>((resolve) => {
      handled = resolve;
    });
    const work = queue(name, { attempts: 1 });
    work.start(async (item) => {
      handed.push(item);
      if (item?.kind === "run" && item.intakeId === "good") handled();
      return "done";
    }, 1);
    await work.add(runItem("a", "good"));
    await done;
    expect(handed).toEqual([runItem("a", "good")]);
  });

  it("posts an item without a delay straight to its mailbox, not through the held-back queue", async () => {
    const name = fresh();
    const work = queue(name, { consume: false });
    await work.add(runItem("a", "now"), { delayMs: 0 });
    expect(await work.depth()).toBe(1);
    expect(await jobState(`${name}-held`, deliverJobId(encodeItem(runItem("a", "now"))))).toBe("unknown");
  });
});
