// Guards of the BullMQ work queue against a real redis-server: an interrupted handler keeps its
// item first in line, a closed queue refuses adds, a queue starts once, and a producer-only
// process (consume: false) leaves every item to the consumers.
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { silentLogger } from "../src/logger.js";
import { createBullmqWorkQueue, type BullmqWorkQueueOptions } from "../src/runs/bullmq-work-queue.js";
import type { ItemEnd, WorkItem, WorkQueue } from "../src/runs/work-queue.js";
import { startRedisServer, type RedisServer } from "./support/redis-server.js";
import { describeWithRedis, redisAvailable } from "./support/redis-suite.js";

let server: RedisServer | undefined;
let queues: WorkQueue[] = [];
let names = 0;

beforeAll(async () => {
  if (redisAvailable) server = await startRedisServer();
});
afterAll(async () => {
  await server?.stop();
});
afterEach(async () => {
  await Promise.all(queues.map((queue) => queue.close(0)));
  queues = [];
});

function queue(name: string, options: Partial<BullmqWorkQueueOptions> = {}): WorkQueue {
  const created = createBullmqWorkQueue({ redisUrl: server!.url, logger: silentLogger, name, backoffMs: 20, ...options });
  queues.push(created);
  return created;
}
const run = (conversationKey: string, intakeId: string): WorkItem => ({ kind: "run", conversationKey, intakeId });
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
  const fresh = () => `guards-${++names}`;

  it("runs an interrupted item again before the conversation's next one", async () => {
    const record = recorder((id, seen) => (id === "first" && seen === 1 ? "interrupted" : "done"));
    const work = queue(fresh());
    work.start(record.handler, 1);
    await work.add(run("a", "first"));
    await work.add(run("a", "second"));
    await record.until(3);
    expect(record.ran).toEqual(["first", "first", "second"]);
  });

  it("refuses an add once it is closed", async () => {
    const work = queue(fresh());
    await work.close(0);
    await expect(work.add(run("a", "late"))).rejects.toThrow("the work queue is closed");
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
    for (const index of [1, 2, 3]) await producer.add(run(`c${index}`, `i${index}`));
    queue(name).start(consuming.handler, 1);
    await consuming.until(3);
    expect(producing.ran).toEqual([]);
    expect([...consuming.ran].sort()).toEqual(["i1", "i2", "i3"]);
  }, 15_000);
});
