// The slot timer for several bot processes on one Redis: each armed slot is one BullMQ delayed
// job, whose id is derived from the schedule id and the slot time (hashed: BullMQ refuses ':'
// in ids). Arming a slot twice, from two processes or after a restart, adds one job; a
// finished job's id is kept for two days, so a slot fired already is not armed again. A job is
// taken by one process at a time; one whose process died is taken up by another (stalled),
// and the intake record under the slot's receipt keeps that from running the slot twice.
import { createHash } from "node:crypto";
import { Queue, Worker, type JobsOptions } from "bullmq";
import { Redis } from "ioredis";
import { z } from "zod";
import type { Logger } from "../logger.js";
import type { SlotTimer } from "./ports.js";

export interface BullmqSlotTimerOptions {
  readonly redisUrl: string;
  readonly logger: Logger;
  /** Names the queue; processes that share schedules use the same one. */
  readonly name?: string;
  /** The clock slots are armed on (its delays are relative, so an offset clock works the same). */
  readonly clock?: () => number;
  /** Slots fired at once by this process (a fire mostly waits on the store: many at 09:00 go out together). */
  readonly concurrency?: number;
}

const DONE_KEPT_S = 2 * 24 * 3600;
/** At most one process re-adds every slot job per this window (a rolling deploy starts several). */
const RECONCILE_WINDOW_MS = 10 * 60_000;
const RECONCILE_CHUNK = 500;
const SlotJob = z.object({ scheduleId: z.string().min(1), slotAt: z.number() });

/** One slot's job id: the same slot always gets the same one, free of ':' and never a bare integer. */
export function slotJobId(scheduleId: string, slotAt: number): string {
  return `slot.${createHash("sha256").update(`${scheduleId}\n${slotAt}`).digest("hex").slice(0, 32)}`;
}

export function createBullmqSlotTimer(options: BullmqSlotTimerOptions): SlotTimer {
  const { logger } = options;
  const clock = options.clock ?? Date.now;
  const name = options.name ?? "schedules";
  // Connected on first use, so a process that fails to start leaves no connection open.
  let connected: { readonly redis: Redis; readonly queue: Queue } | undefined;
  const connect = () => {
    if (connected) return connected;
    // Commands wait through a lost connection instead of failing: Redis restarts are ridden out.
    const redis = new Redis(options.redisUrl, { maxRetriesPerRequest: null });
    redis.on("error", (error) => logger.warn({ err: error }, "schedules: Redis connection error"));
    const queue = new Queue(name, { connection: redis });
    queue.on("error", (error) => logger.warn({ err: error }, "schedules: queue error"));
    connected = { redis, queue };
    return connected;
  };
  let worker: Worker | undefined;
  let reconciling: Promise<void> = Promise.resolve();
  let closing = false;

  async function reconcile(entries: ReadonlyArray<{ readonly id: string; readonly at: number }>): Promise<void> {
    const { redis, queue } = connect();
    if ((await redis.set(`${name}:reconcile`, String(process.pid), "PX", RECONCILE_WINDOW_MS, "NX")) !== "OK") return;
    // In chunks: one pipeline each, and a shutdown waits for one chunk at most.
    for (let start = 0; start < entries.length && !closing; start += RECONCILE_CHUNK)
      await queue.addBulk(entries.slice(start, start + RECONCILE_CHUNK).map(({ id, at }) => job(id, at)));
  }

  const job = (id: string, at: number): { name: string; data: z.infer<typeof SlotJob>; opts: JobsOptions } => ({
    name: "slot",
    data: { scheduleId: id, slotAt: at },
    opts: {
      jobId: slotJobId(id, at),
      delay: Math.max(0, at - clock()),
      // Tried for an hour (the store down); then dropped, and the next start arms the schedule's slot again.
      attempts: 240,
      backoff: { type: "fixed", delay: 15_000 },
      removeOnComplete: { age: DONE_KEPT_S },
      removeOnFail: true,
    },
  });

  return {
    async arm(id, at) {
      const { name: jobName, data, opts } = job(id, at);
      await connect().queue.add(jobName, data, opts);
    },
    async restore(entries) {
      // The jobs are in Redis already; adding them again (a no-op for each that exists) repairs a crash
      // between a schedule's change and its job. One process does it per start window, in the background.
      reconciling = reconcile(entries).catch((error: unknown) =>
        logger.warn({ err: error }, "schedules: could not check every schedule's slot job; the next start tries again"),
      );
    },
    async disarm(id, at) {
      // An active or locked job can't be removed; it finds its schedule not active when it runs.
      await connect()
        .queue.remove(slotJobId(id, at))
        .catch(() => 0);
    },
    start(fire) {
      if (worker) throw new Error("the slot timer was already started");
      worker = new Worker(
        name,
        async (taken) => {
          const parsed = SlotJob.safeParse(taken.data);
          if (!parsed.success) return void logger.error({ jobId: taken.id }, "schedules: an unreadable slot job was dropped");
          await fire(parsed.data.scheduleId, parsed.data.slotAt);
        },
        { connection: connect().redis, concurrency: options.concurrency ?? 256 },
      );
      worker.on("error", (error) => logger.warn({ err: error }, "schedules: worker error"));
      worker.on("failed", (failed, error) =>
        logger.warn({ err: error, jobId: failed?.id, attempts: failed?.attemptsMade }, "schedules: a slot could not be fired; retried"),
      );
    },
    async close() {
      closing = true;
      await reconciling;
      await worker?.close();
      await connected?.queue.close();
      connected?.redis.disconnect();
    },
  };
}
