// The BullMQ work queue across real processes on one real redis-server: per-conversation order,
// exactly-once handling (with the record-based dedupe every handler has), work spread across
// processes, kill -9 of a process, a Redis restart, and held-back items.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterEach, expect, it } from "vitest";
import { silentLogger } from "../../../src/logger.js";
import { createBullmqWorkQueue } from "../../../src/runs/queue/bullmq-work-queue.js";
import type { WorkItem, WorkQueue } from "../../../src/runs/queue/work-queue.js";
import { checkLog, readLog, startWorkerProcess, untilEnded, untilStarted, type WorkerProcess } from "../../support/bullmq-cluster.js";
import { startRedisServer, type RedisServer } from "../../support/redis-server.js";
import { describeWithRedis } from "../../support/redis-suite.js";

const CONVERSATIONS = 500;
const QUEUE = "multi";

let cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  cleanups = [];
});

async function redisServer(dataDir?: string): Promise<RedisServer> {
  const server = await startRedisServer(undefined, dataDir ? { dataDir } : {});
  cleanups.push(() => server.stop());
  return server;
}

function client(url: string): Redis {
  const redis = new Redis(url, { maxRetriesPerRequest: null });
  redis.on("error", () => {});
  cleanups.push(async () => void redis.disconnect());
  return redis;
}

function producer(url: string): WorkQueue {
  const queue = createBullmqWorkQueue({ redisUrl: url, name: QUEUE, logger: silentLogger });
  cleanups.push(() => queue.close(0));
  return queue;
}

async function workers(url: string, count: number): Promise<WorkerProcess[]> {
  const started = await Promise.all(Array.from({ length: count }, () => startWorkerProcess(url, QUEUE)));
  for (const worker of started) cleanups.push(async () => void worker.child.kill("SIGKILL"));
  return started;
}

/** Adds every conversation's first message, then every second one, like people answering each other. */
async function addConversations(queue: WorkQueue, count: number): Promise<Map<string, string[]>> {
  const expected = new Map<string, string[]>();
  for (const round of [1, 2]) {
    const items: WorkItem[] = [];
    for (let index = 0; index < count; index += 1) {
      const conversationKey = `slack:T1:C${index}:1700000000.${index}`;
      const intakeId = `${index}-${round}`;
      expected.set(conversationKey, [...(expected.get(conversationKey) ?? []), intakeId]);
      items.push({ kind: "run", conversationKey, intakeId });
    }
    await Promise.all(items.map((item) => queue.add(item)));
  }
  return expected;
}

describeWithRedis("the BullMQ work queue across processes", () => {
  it("handles 500 conversations × 2 items once each, in order, spread over 3 processes", async () => {
    const server = await redisServer();
    const redis = client(server.url);
    const processes = await workers(server.url, 3);
    const queue = producer(server.url);

    const expected = await addConversations(queue, CONVERSATIONS);
    await untilEnded(redis, CONVERSATIONS * 2);

    const check = checkLog(await readLog(redis), expected);
    expect(check.notOnce).toEqual([]);
    expect(check.outOfOrder).toEqual([]);
    expect(check.overlapping).toEqual([]);
    for (const { pid } of processes) expect(check.endsByPid.get(pid) ?? 0).toBeGreaterThanOrEqual(CONVERSATIONS * 2 * 0.2);
    await expect.poll(() => queue.depth()).toBe(0);
  }, 90_000);

  it("finishes a killed process's items on the others", async () => {
    const server = await redisServer();
    const redis = client(server.url);
    const processes = await workers(server.url, 3);
    const queue = producer(server.url);

    const expected = await addConversations(queue, CONVERSATIONS);
    await untilEnded(redis, CONVERSATIONS);
    const victim = processes[0]!;
    victim.child.kill("SIGKILL");
    await victim.exited;
    await untilEnded(redis, CONVERSATIONS * 2);

    const check = checkLog(await readLog(redis), expected, new Set([victim.pid]));
    expect(check.notOnce).toEqual([]);
    expect(check.outOfOrder).toEqual([]);
    expect(check.overlapping).toEqual([]);
    // An item the killed process had ended but not yet taken off its mailbox is redone once its lock
    // (3 s in these workers) has lapsed and a stalled check (every second) has seen it.
    await expect.poll(() => queue.depth(), { timeout: 15_000 }).toBe(0);
  }, 90_000);

  it("handles every item once when Redis restarts while items are in flight", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "bullmq-redis-"));
    cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    const first = await startRedisServer(undefined, { dataDir });
    let server: RedisServer = first;
    cleanups.push(() => server.stop());
    const redis = client(first.url);
    await workers(first.url, 3);
    const queue = producer(first.url);

    const expected = await addConversations(queue, CONVERSATIONS);
    await untilEnded(redis, CONVERSATIONS / 2);
    await first.stop();
    server = await startRedisServer(first.port, { dataDir });
    await untilEnded(redis, CONVERSATIONS * 2);

    const check = checkLog(await readLog(redis), expected);
    expect(check.notOnce).toEqual([]);
    expect(check.outOfOrder).toEqual([]);
    await expect.poll(() => queue.depth()).toBe(0);
  }, 90_000);

  it("takes a conversation up again when its job stalled past maxStalledCount", async () => {
    const server = await redisServer();
    const redis = client(server.url);
    // With maxStalledCount 0 BullMQ fails a stalled job at once instead of retrying it.
    const first = await startWorkerProcess(server.url, QUEUE, 8, 10_000, { WORKER_MAX_STALLED: "0" });
    cleanups.push(async () => void first.child.kill("SIGKILL"));
    const queue = producer(server.url);
    const expected = await addConversations(queue, 4);
    await untilStarted(redis, 4);
    first.child.kill("SIGKILL");
    await first.exited;
    await Promise.all(
      [0, 1].map(() =>
        startWorkerProcess(server.url, QUEUE, 8, 10, { WORKER_MAX_STALLED: "0" }).then((worker) =>
          cleanups.push(async () => void worker.child.kill("SIGKILL")),
        ),
      ),
    );
    await untilEnded(redis, 8);

    const check = checkLog(await readLog(redis), expected, new Set([first.pid]));
    expect(check.notOnce).toEqual([]);
    expect(check.outOfOrder).toEqual([]);
  }, 60_000);

  it("fires each held-back item once, on one of the processes", async () => {
    const server = await redisServer();
    const redis = client(server.url);
    await workers(server.url, 3);
    const queue = producer(server.url);

    const expected = new Map<string, string[]>();
    const items = Array.from(
      { length: 30 },
      (_, index): WorkItem => ({ kind: "expire", conversationKey: `discord:G:C${index}`, runId: `run-${index}`, callId: `call-${index}` }),
    );
    for (const item of items) expected.set(item.conversationKey, [`expire:${item.kind === "expire" ? item.callId : ""}`]);
    // Each expiry is added twice, as a retake would: it is scheduled once.
    await Promise.all([...items, ...items].map((item, index) => queue.add(item, { delayMs: 300 + (index % 30) * 10 })));
    expect(await queue.depth()).toBe(30);
    await untilEnded(redis, items.length);

    const check = checkLog(await readLog(redis), expected);
    expect(check.notOnce).toEqual([]);
    expect((await readLog(redis)).filter((entry) => entry.phase === "start")).toHaveLength(30);
    await expect.poll(() => queue.depth()).toBe(0);
  }, 60_000);
});
