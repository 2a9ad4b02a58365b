// The work queue for several bot processes on one Redis, on BullMQ. BullMQ's open-source
// edition has no groups, so per-conversation order is built on it: each conversation has a
// mailbox (a Redis list) and at most one drain job at a time, which takes the mailbox's items
// in order. The drain job's BullMQ lock is the conversation's lease: the worker renews it
// while the handler runs (a heartbeat, no fixed TTL), and when a process dies BullMQ finds the
// job stalled and another process takes it up, starting again at the item that was running.
// Held-back items (approval expiry) are delayed jobs on a second queue that post the item
// into its mailbox when due.
import { randomUUID } from "node:crypto";
import { Queue, QueueEvents, WaitingError, Worker, type Job, type JobsOptions } from "bullmq";
import { Redis } from "ioredis";
import type { Logger } from "../../logger.js";
import { within } from "../within.js";
import { conversationHash, decodeItem, deliverJobId, drainJobId, encodeItem, parseDrainJobId } from "./bullmq-codec.js";
import { createMailboxes } from "./bullmq-mailbox.js";
import type { ItemEnd, WorkHandler, WorkItem, WorkQueue } from "./work-queue.js";

export interface BullmqWorkQueueOptions {
  readonly redisUrl: string;
  readonly logger: Logger;
  /** Names the queues and the mailbox keys; processes that share work use the same one. */
  readonly name?: string;
  /** Tries per drain job before the item at its head is given up (its record stays unfinished). */
  readonly attempts?: number;
  /** First retry delay; doubles per try. */
  readonly backoffMs?: number;
  /** How long a silent process keeps a conversation (renewed at half this while it lives). */
  readonly lockDurationMs?: number;
  /** How often each process looks for jobs whose process died. */
  readonly stalledIntervalMs?: number;
  readonly maxStalledCount?: number;
  /** False: this process only adds items (BOT_ROLE=ingress) and start() runs no workers. */
  readonly consume?: boolean;
}

const DEFAULTS = {
  name: "work",
  consume: true,
  attempts: 5,
  backoffMs: 1_000,
  lockDurationMs: 30_000,
  stalledIntervalMs: 15_000,
  maxStalledCount: 2,
};
const FAILED_JOBS_KEPT_S = 24 * 3600;
/**
 * How long a close waits for BullMQ's Workers once no handler runs here any more, then for its Queues: a Worker whose
 * blocking connection is down (an outage, or a restart it has not come back from yet) never finishes closing. Short:
 * the shutdown budget has little left after the runs' grace.
 */
const WORKERS_CLOSE_MS = 500;
const QUEUES_CLOSE_MS = 250;

export function createBullmqWorkQueue(options: BullmqWorkQueueOptions): WorkQueue {
  const settings = { ...DEFAULTS, ...definedOnly(options) };
  const { logger } = options;
  // Commands wait through a lost connection instead of failing: Redis restarts are ridden out.
  const redis = new Redis(options.redisUrl, { maxRetriesPerRequest: null });
  redis.on("error", (error) => logger.warn({ err: error }, "work queue: Redis connection error"));
  const mailboxes = createMailboxes(redis, `${settings.name}-mailbox`);
  const drains = new Queue(settings.name, { connection: redis });
  const held = new Queue(`${settings.name}-held`, { connection: redis });
  for (const queue of [drains, held]) queue.on("error", (error) => logger.warn({ err: error }, "work queue: queue error"));
  const jobOptions: JobsOptions = {
    attempts: settings.attempts,
    backoff: { type: "exponential", delay: settings.backoffMs },
    removeOnComplete: true,
    removeOnFail: { age: FAILED_JOBS_KEPT_S },
  };
  const running = new Map<string, AbortController>();
  /** Items whose handler runs in this process now (a drain's own Redis calls aside), and who waits for there to be none. */
  let handling = 0;
  const idleWaiters: Array<() => void> = [];
  const idle = () => (handling === 0 ? Promise.resolve() : new Promise<void>((resolve) => idleWaiters.push(resolve)));
  const workers: Worker[] = [];
  let events: { readonly queueEvents: QueueEvents; readonly connection: Redis } | undefined;
  let closing: Promise<void> | undefined;

  const addDrain = async (hash: string, generation: string): Promise<void> => {
    await drains.add("drain", { hash }, { ...jobOptions, jobId: drainJobId(hash, generation) });
  };

  const post = async (raw: string, conversationKey: string): Promise<void> => {
    const hash = conversationHash(conversationKey);
    // One round trip for a conversation without an owner (the common case, and what an ack waits for): the drain job
    // of the proposed generation goes out right behind the push, without waiting for its answer. On one connection
    // Redis runs them in order, so the job never finds its mailbox without the item. When the mailbox had an owner
    // already, that job finds it is not the owner and ends at once, and the owner's job is added again: a no-op while
    // it exists, a new one when a crash came between an earlier push and its add.
    const proposed = newGeneration();
    const [owner] = await Promise.all([mailboxes.push(hash, raw, proposed), addDrain(hash, proposed)]);
    if (owner !== proposed) await addDrain(hash, owner);
  };

  /** A mailbox whose drain job failed or vanished gets a new generation and a new job. */
  const retake = async (hash: string, generation: string): Promise<void> => {
    const next = newGeneration();
    if (await mailboxes.rotate(hash, generation, next)) await addDrain(hash, next);
  };

  const reconcile = async (): Promise<void> => {
    for (const { hash, generation } of await mailboxes.owners()) {
      const state = await drains.getJobState(drainJobId(hash, generation));
      if (state === "failed" || state === "completed" || state === "unknown") await retake(hash, generation);
    }
  };

  const drain = async (job: Job, token: string | undefined, handler: WorkHandler, signal: AbortSignal | undefined): Promise<void> => {
    const owner = parseDrainJobId(job.id ?? "");
    if (!owner) return void logger.error({ jobId: job.id }, "work queue: a drain job with a malformed id was dropped");
    const controller = new AbortController();
    running.set(job.id!, controller);
    signal?.addEventListener("abort", () => controller.abort(), { once: true });
    try {
      for (;;) {
        const next = await mailboxes.next(owner.hash, owner.generation);
        if (next.kind !== "item") return;
        // Checked once the item is known, not before the take: a close that began while it was taken starts nothing more.
        if (closing || controller.signal.aborted) {
          // Back to waiting with the item still at the mailbox's head: another process (or the next start) goes on.
          await job.moveToWait(token);
          throw new WaitingError();
        }
        const decoded = decodeItem(next.raw);
        if (decoded.kind === "invalid") {
          logger.error({ reason: decoded.reason }, "work queue: an unreadable item was dropped");
          await mailboxes.pop(owner.hash, next.raw);
          continue;
        }
        let end: ItemEnd | undefined;
        handling += 1;
        try {
          end = await handler(decoded.item, controller.signal);
        } catch (error) {
          if (controller.signal.aborted) continue;
          if (job.attemptsMade + 1 < (job.opts.attempts ?? 1)) throw error;
          logger.error(
            { err: error, item: decoded.item },
            "work queue: an item kept failing and was given up; its record stays unfinished",
          );
        } finally {
          handling -= 1;
          if (handling === 0) for (const resolve of idleWaiters.splice(0)) resolve();
        }
        // A handler cut short (or one that stopped for shutdown, unfinished) keeps its item at the head: whoever goes on
        // starts it again from its record, before the conversation's next item.
        if (end === "interrupted") {
          await job.moveToWait(token);
          throw new WaitingError();
        }
        if (!controller.signal.aborted) await mailboxes.pop(owner.hash, next.raw);
      }
    } finally {
      running.delete(job.id!);
    }
  };

  const deliver = async (job: Job): Promise<void> => {
    const decoded = decodeItem(String((job.data as { item?: unknown }).item));
    if (decoded.kind === "invalid")
      return void logger.error({ reason: decoded.reason }, "work queue: an unreadable held-back item was dropped");
    await post(encodeItem(decoded.item), decoded.item.conversationKey);
  };

  return {
    async add(item: WorkItem, addOptions?: { readonly delayMs?: number }): Promise<void> {
      if (closing) throw new Error("the work queue is closed");
      const raw = encodeItem(item);
      const delayMs = addOptions?.delayMs ?? 0;
      if (delayMs > 0) await held.add("deliver", { item: raw }, { ...jobOptions, jobId: deliverJobId(raw), delay: delayMs });
      else await post(raw, item.conversationKey);
    },

    start(handler: WorkHandler, concurrency: number): void {
      if (workers.length > 0) throw new Error("the work queue was already started");
      if (options.consume === false) return;
      const workerOptions = {
        connection: redis,
        lockDuration: settings.lockDurationMs,
        stalledInterval: settings.stalledIntervalMs,
        maxStalledCount: settings.maxStalledCount,
      };
      const drainWorker = new Worker(settings.name, (job, token, signal) => drain(job, token, handler, signal), {
        ...workerOptions,
        concurrency,
      });
      // A lost lock means another process took the conversation over: stop the handler here.
      drainWorker.on("lockRenewalFailed", (jobIds) => {
        for (const jobId of jobIds) running.get(jobId)?.abort();
      });
      const heldWorker = new Worker(`${settings.name}-held`, deliver, { ...workerOptions, concurrency: 1 });
      for (const worker of [drainWorker, heldWorker]) {
        worker.on("error", (error) => logger.warn({ err: error }, "work queue: worker error"));
        workers.push(worker);
      }
      const eventsConnection = redis.duplicate();
      eventsConnection.on("error", () => {}); // reported once, by the main connection
      const queueEvents = new QueueEvents(settings.name, { connection: eventsConnection });
      events = { queueEvents, connection: eventsConnection };
      queueEvents.on("failed", ({ jobId, failedReason }) => {
        const owner = parseDrainJobId(jobId);
        if (!owner) return;
        logger.warn({ jobId, failedReason }, "work queue: a drain job failed; its conversation is taken up again");
        retake(owner.hash, owner.generation).catch((error: unknown) =>
          logger.warn({ err: error }, "work queue: retake failed; the next start retries"),
        );
      });
      queueEvents.on("error", (error) => logger.warn({ err: error }, "work queue: event stream error"));
      // After a start or a Redis restart, a conversation whose job is gone gets one again.
      const reconcileLogged = (): void =>
        void reconcile().catch((error: unknown) => logger.warn({ err: error }, "work queue: reconcile failed"));
      redis.on("ready", reconcileLogged);
      reconcileLogged();
    },

    async depth(): Promise<number> {
      const [items, heldCounts] = await Promise.all([mailboxes.count(), held.getJobCounts("waiting", "delayed", "active", "prioritized")]);
      return items + Object.values(heldCounts).reduce((sum, count) => sum + count, 0);
    },

    close(graceMs: number): Promise<void> {
      closing ??= (async () => {
        const abortAll = setTimeout(() => {
          for (const controller of running.values()) controller.abort();
        }, graceMs);
        const closingWorkers = Promise.allSettled(workers.map((worker) => worker.close()));
        // Handlers take the time they need to stop (they are aborted at the grace); only BullMQ's own closing is bounded.
        const workersClosed = await Promise.race([
          closingWorkers.then(() => true),
          idle().then(() => within(closingWorkers, WORKERS_CLOSE_MS)),
        ]);
        clearTimeout(abortAll);
        const queuesClosed = await within(Promise.allSettled([events?.queueEvents.close(), drains.close(), held.close()]), QUEUES_CLOSE_MS);
        // No handler runs any more: what is cut here is BullMQ's own bookkeeping, which a stalled check redoes.
        if (!workersClosed || !queuesClosed) logger.warn("work queue: Redis did not answer while closing; its connections are cut");
        events?.connection.disconnect();
        redis.disconnect();
      })();
      return closing;
    },
  };
}

/** A mailbox owner's generation: random, so no two processes ever propose the same one; hex, as drain job ids expect (randomUUID draws from a cached pool: no system call per ack). */
const newGeneration = (): string => randomUUID().replaceAll("-", "");

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as Partial<T>;
}
