// Faults around the BullMQ work queue, against a real redis-server: Redis going away under a live
// queue is reported through the logger and ridden out; a handler that throws because shutdown cut
// it short does not use up one of its item's tries; a lost lock reported for a job this process
// does not run changes nothing; close() waits for every running handler (cutting them short at the
// grace), ends during an outage and after a restart, and leaves no connection of the queue's open.
import { Worker } from "bullmq";
import { expect, it, vi } from "vitest";
import { createBullmqWorkQueue } from "../../../src/runs/queue/bullmq-work-queue.js";
import type { WorkHandler, WorkItem } from "../../../src/runs/queue/work-queue.js";
import { capturingLogger } from "../../support/capturing-logger.js";
import { startRedisServer, type RedisServer } from "../../support/redis-server.js";
import { describeWithRedis } from "../../support/redis-suite.js";
import { runItem, useBullmqQueues } from "../../support/bullmq-queues.js";

const queues = useBullmqQueues("faults");

const queue = queues.queue;

/** Records each item's start and end; `ended(id)` resolves once a handler of `id` returned without throwing. */
function recorder(work: (item: WorkItem, signal: AbortSignal, seen: number) => Promise<void> = async () => {}) {
  const events: string[] = [];
  const waiters: Array<{ id: string; resolve: () => void }> = [];
  const handler: WorkHandler = async (item, signal) => {
    const id = item.kind === "run" ? item.intakeId : item.callId;
    events.push(`start ${id}`);
    const seen = events.filter((event) => event === `start ${id}`).length;
    try {
      await work(item, signal, seen);
    } catch (error) {
      events.push(`threw ${id}`);
      throw error;
    }
    events.push(`end ${id}`);
    for (const waiter of waiters.filter((entry) => entry.id === id)) waiter.resolve();
  };
  const ended = (id: string) => new Promise<void>((resolve) => (events.includes(`end ${id}`) ? resolve() : waiters.push({ id, resolve })));
  return { handler, events, ended };
}

/** A promise and the function that settles it. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open: () => void = () => {};
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

describeWithRedis("the BullMQ work queue under faults", () => {
  it("reports a Redis outage through its logger, for the connection and each of its queues, and takes items again once Redis is back", async () => {
    const own = await startRedisServer();
    let current = own;
    queues.cleanup(() => current.stop());
    const { logger, lines, waitFor: line } = capturingLogger();
    const printed = vi.spyOn(console, "error").mockImplementation(() => {});
    queues.cleanup(async () => void printed.mockRestore());
    const name = queues.name();
    // A producer: what is checked here is what the connection and the two Queues report (the Workers' own errors are logged apart).
    const producer = queue({ redisUrl: own.url, logger, name, consume: false });
    await producer.add(runItem("a", "before"));
    await own.stop();
    // The connection's listener is the first of its `error` listeners: once it has logged, the queues' have run too.
    const outage = await line((entry) => entry.msg === "work queue: Redis connection error");
    const message = (outage.err as { message: string }).message;
    const queueErrors = lines.filter(
      (entry) => entry.msg === "work queue: queue error" && (entry.err as { message: string }).message === message,
    );
    expect(queueErrors).toHaveLength(2);
    expect(printed).not.toHaveBeenCalled();
    current = await startRedisServer(own.port);
    await producer.add(runItem("a", "after"));
    const record = recorder();
    queue({ redisUrl: own.url, name }).start(record.handler, 1);
    await record.ended("after");
    expect(record.events).toEqual(["start after", "end after"]); // "before" went with the unpersisted Redis
  });

  it("does not count a handler that threw because shutdown cut it short as one of its item's tries", async () => {
    const started = gate();
    const record = recorder(async (item, signal, seen) => {
      if (item.kind !== "run" || item.intakeId !== "1") return;
      if (seen === 1) {
        started.open();
        // Like a model call cancelled by the signal: the handler rejects with the abort reason.
        await new Promise<void>((_, reject) => signal.addEventListener("abort", () => reject(signal.reason), { once: true }));
      }
      if (seen === 2) throw new Error("a passing failure");
    });
    const name = queues.name();
    const first = queue({ name, attempts: 2 });
    first.start(record.handler, 1);
    await first.add(runItem("a", "1"));
    await first.add(runItem("a", "2"));
    await started.promise;
    await first.close(0);
    // The next process has both tries left for item 1: one fails, the other ends it, and item 2 follows.
    queue({ name, attempts: 2 }).start(record.handler, 1);
    await record.ended("2");
    expect(record.events).toEqual(["start 1", "threw 1", "start 1", "threw 1", "start 1", "end 1", "start 2", "end 2"]);
  });

  it("ignores a lost lock reported for a job it does not run, and goes on taking items", async () => {
    const listening = vi.spyOn(Worker.prototype, "on");
    queues.cleanup(async () => void listening.mockRestore());
    const { logger, lines } = capturingLogger();
    const record = recorder();
    const work = queue({ logger });
    work.start(record.handler, 1);
    const index = listening.mock.calls.findIndex(([event]) => event === "lockRenewalFailed");
    const drainWorker = listening.mock.contexts[index] as Worker;
    expect(drainWorker).toBeInstanceOf(Worker);
    // As BullMQ's lock manager reports it (the ids of jobs whose lock could not be renewed); a listener that throws
    // would come back, caught by BullMQ, as a worker error.
    expect(() => drainWorker.emit("lockRenewalFailed", ["drain.not-here.0123456789abcdef0123456789abcdef"])).not.toThrow();
    expect(lines.filter((line) => line.msg === "work queue: worker error")).toEqual([]);
    await work.add(runItem("a", "after"));
    await record.ended("after");
    expect(record.events).toEqual(["start after", "end after"]);
  });

  /** A consuming queue on a Redis of its own that has run one item, with that Redis then stopped under it (the outage logged). */
  async function queueAfterOutage() {
    const own = await startRedisServer();
    let current: RedisServer = own;
    queues.cleanup(() => current.stop());
    const { logger, waitFor: line } = capturingLogger();
    const printed = vi.spyOn(console, "error").mockImplementation(() => {});
    queues.cleanup(async () => void printed.mockRestore());
    const name = queues.name();
    const record = recorder();
    const work = createBullmqWorkQueue({ redisUrl: own.url, logger, name, backoffMs: 20 });
    work.start(record.handler, 1);
    await work.add(runItem("a", "before"));
    await record.ended("before");
    await own.stop();
    await line((entry) => entry.msg === "work queue: Redis connection error");
    return {
      work,
      line,
      async restartRedis() {
        current = await startRedisServer(own.port);
      },
      /** The next process on the restarted Redis runs a new item, after the one before the outage. */
      async nextProcessGoesOn() {
        queue({ redisUrl: own.url, name }).start(record.handler, 1);
        await queue({ redisUrl: own.url, name, consume: false }).add(runItem("a", "after"));
        await record.ended("after");
        expect(record.events).toEqual(["start before", "end before", "start after", "end after"]);
      },
    };
  }

  it("closes right after Redis restarted under it, before its workers are back, and the next process goes on", async () => {
    const outage = await queueAfterOutage();
    await outage.restartRedis();
    // Hangs (the test times out) when the close waits for a Worker whose blocking connection has not come back.
    await outage.work.close(0);
    await outage.nextProcessGoesOn();
  });

  it("closes while Redis is down, saying so, and the next process goes on once Redis is back", async () => {
    const outage = await queueAfterOutage();
    // Hangs (the test times out) when the close waits for Workers whose blocking connection never comes back.
    await outage.work.close(0);
    await outage.line((entry) => entry.msg === "work queue: Redis did not answer while closing; its connections are cut");
    await outage.restartRedis();
    await outage.nextProcessGoesOn();
  });

  it("waits for every handler that outlasts its workers' close bound, and says nothing of Redis when Redis answered", async () => {
    const { logger, lines } = capturingLogger();
    const closeBegun = gate();
    const record = recorder(async (item) => {
      if (item.kind !== "run") return;
      // One handler ends just after the close began, the other well past the 500 ms the close gives BullMQ's workers.
      if (item.intakeId === "short") await closeBegun.promise;
      if (item.intakeId === "long") await new Promise((resolve) => setTimeout(resolve, 1_500));
    });
    const work = queue({ logger });
    work.start(record.handler, 2);
    await work.add(runItem("a", "short"));
    await work.add(runItem("b", "long"));
    await expect.poll(() => record.events.filter((event) => event.startsWith("start")).length).toBe(2);
    const closed = work.close(10_000).then(() => record.events.push("closed"));
    closeBegun.open();
    await closed;
    expect(record.events.slice(2).sort()).toEqual(["closed", "end long", "end short"]);
    expect(record.events.at(-1)).toBe("closed");
    expect(lines.filter((line) => line.level >= 40)).toEqual([]);
  });

  it("during an outage, cuts a running handler short at the grace, waits for it, and then ends, saying Redis did not answer", async () => {
    const own = await startRedisServer();
    queues.cleanup(() => own.stop());
    const { logger, waitFor: line } = capturingLogger();
    const printed = vi.spyOn(console, "error").mockImplementation(() => {});
    queues.cleanup(async () => void printed.mockRestore());
    const started = gate();
    const record = recorder(async (_item, signal) => {
      started.open();
      await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
    });
    const work = createBullmqWorkQueue({ redisUrl: own.url, logger, name: queues.name(), backoffMs: 20 });
    work.start(record.handler, 1);
    await work.add(runItem("a", "1"));
    await started.promise;
    await own.stop();
    await line((entry) => entry.msg === "work queue: Redis connection error");
    // Hangs (the test times out) when the close does not learn that its last handler ended.
    await work.close(200).then(() => record.events.push("closed"));
    expect(record.events).toEqual(["start 1", "end 1", "closed"]);
    await line((entry) => entry.msg === "work queue: Redis did not answer while closing; its connections are cut");
  });

  it("starts no item once a close has begun, though the item was being taken as the close began", async () => {
    const inspector = queues.client();
    const name = queues.name();
    const record = recorder(async (item) => {
      // Redis holds every write (and the drain's next take, a script) for a moment: the close begins while it waits.
      if (item.kind === "run" && item.intakeId === "1") await inspector.client("PAUSE", "300", "WRITE");
    });
    const first = queue({ name });
    first.start(record.handler, 1);
    await first.add(runItem("a", "1"));
    await first.add(runItem("a", "2"));
    await record.ended("1");
    await first.close(5_000);
    expect(record.events).toEqual(["start 1", "end 1"]);
    queue({ name }).start(record.handler, 1);
    await record.ended("2");
    expect(record.events).toEqual(["start 1", "end 1", "start 2", "end 2"]);
  });

  it("leaves no connection of its own open on the Redis server once closed", async () => {
    const name = queues.name();
    const inspector = queues.client();
    // BullMQ names the connections it opens for a queue after the queue's name (base64).
    const tag = Buffer.from(name).toString("base64");
    const named = async () => ((await inspector.client("LIST")) as string).split("\n").filter((entry) => entry.includes(tag));
    const record = recorder();
    const work = queue({ name });
    work.start(record.handler, 1);
    await work.add(runItem("a", "1"));
    await record.ended("1");
    await expect.poll(async () => (await named()).some((entry) => entry.includes(":qe"))).toBe(true);
    await work.close(0);
    await expect.poll(named).toEqual([]);
  });
});
