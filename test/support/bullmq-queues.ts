// BullMQ work queues for the queue's own tests: one private redis-server per test file (none where
// redis-server is missing: the suites skip, see redis-suite.ts), a queue name of its own per test so
// no two tests share keys, and everything a test opened closed after it, last opened first.
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll } from "vitest";
import { silentLogger } from "../../src/logger.js";
import { createBullmqWorkQueue, type BullmqWorkQueueOptions } from "../../src/runs/queue/bullmq-work-queue.js";
import type { WorkItem, WorkQueue } from "../../src/runs/queue/work-queue.js";
import { startRedisServer, type RedisServer } from "./redis-server.js";
import { redisAvailable } from "./redis-suite.js";

export interface BullmqQueues {
  /** The file's redis-server. */
  readonly url: string;
  /** A queue name no other test of the file uses. */
  name(): string;
  /** A queue on the file's server (or `redisUrl`) with a 20 ms backoff and a fresh name unless given; closed after the test. */
  queue(options?: Partial<BullmqWorkQueueOptions>): WorkQueue;
  /** A Redis client on the file's server, as another process would look; disconnected after the test. */
  client(): Redis;
  /** Runs after the test, before what was registered earlier. */
  cleanup(close: () => Promise<void>): void;
}

/** Call at the top of a test file; `prefix` starts the file's queue names. */
export function useBullmqQueues(prefix: string): BullmqQueues {
  let server: RedisServer | undefined;
  let names = 0;
  const cleanups: Array<() => Promise<void>> = [];
  beforeAll(async () => {
    if (redisAvailable) server = await startRedisServer();
  });
  afterAll(async () => {
    await server?.stop();
  });
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  const queues: BullmqQueues = {
    get url() {
      if (!server) throw new Error("the file's redis-server runs only inside its tests");
      return server.url;
    },
    name: () => `${prefix}-${++names}`,
    queue(options = {}) {
      const created = createBullmqWorkQueue({ redisUrl: queues.url, logger: silentLogger, name: queues.name(), backoffMs: 20, ...options });
      cleanups.push(() => created.close(0));
      return created;
    },
    client() {
      const redis = new Redis(queues.url, { maxRetriesPerRequest: null });
      cleanups.push(async () => void redis.disconnect());
      return redis;
    },
    cleanup: (close) => void cleanups.push(close),
  };
  return queues;
}

/** A message's work item: run intake record `intakeId` of `conversationKey`. */
export const runItem = (conversationKey: string, intakeId: string): WorkItem => ({ kind: "run", conversationKey, intakeId });
