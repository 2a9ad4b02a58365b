// One bot process in miniature for the multi-process queue tests: works the BullMQ queue named
// on the command line with a handler that behaves like the real one (an item whose record is
// done is a no-op; otherwise it works `workMs`, then marks the record done). Every start and
// end goes to the `log` list in the same Redis, so the test sees what each process did.
//   bullmq-worker-process.ts <redis-url> <queue-name> <concurrency> <work-ms>
// Prints "ready" once it works; SIGTERM closes the queue (grace 5 s) and exits 0.
// WORKER_MAX_STALLED sets BullMQ's maxStalledCount.
import { Redis } from "ioredis";
import { createLogger } from "../../src/logger.js";
import { createBullmqWorkQueue } from "../../src/runs/queue/bullmq-work-queue.js";
import type { WorkItem } from "../../src/runs/queue/work-queue.js";

const [url, name, concurrencyText, workMsText] = process.argv.slice(2);
if (!url || !name) throw new Error("usage: bullmq-worker-process.ts <redis-url> <queue-name> <concurrency> <work-ms>");

export interface LogEntry {
  readonly pid: number;
  readonly id: string;
  readonly conversation: string;
  readonly phase: "start" | "end";
}

const logger = createLogger(process.env.LOG_LEVEL ?? "error");
const redis = new Redis(url, { maxRetriesPerRequest: null });
redis.on("error", () => {});
const maxStalledCount = process.env.WORKER_MAX_STALLED === undefined ? undefined : Number(process.env.WORKER_MAX_STALLED);
const queue = createBullmqWorkQueue({
  redisUrl: url,
  name,
  logger,
  lockDurationMs: 3_000,
  stalledIntervalMs: 1_000,
  backoffMs: 200,
  maxStalledCount,
});
const workMs = Number(workMsText ?? 10);

// One script, so a command the client sends again after a Redis restart can't log an end twice.
const END = `
if redis.call('SET', KEYS[1], ARGV[1], 'NX') then
  redis.call('RPUSH', KEYS[2], ARGV[2])
  redis.call('RPUSH', KEYS[3], ARGV[3])
end
redis.call('RPUSH', KEYS[4], '1')`;

const idOf = (item: WorkItem): string => (item.kind === "run" ? item.intakeId : `${item.kind}:${item.callId}`);
const entry = (item: WorkItem, phase: LogEntry["phase"]): string =>
  JSON.stringify({ pid: process.pid, id: idOf(item), conversation: item.conversationKey, phase });

queue.start(
  async (item, signal) => {
    if (await redis.get(`done:${idOf(item)}`)) return;
    await redis.multi().rpush("log", entry(item, "start")).rpush("starts", "1").exec();
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, workMs);
      const stop = (): void => {
        clearTimeout(timer);
        resolve();
      };
      signal.addEventListener("abort", stop, { once: true });
    });
    if (signal.aborted) return;
    await redis.eval(END, 4, `done:${idOf(item)}`, "log", "log-ends", "progress", process.pid, entry(item, "end"), idOf(item));
  },
  Number(concurrencyText ?? 8),
);

process.stdout.write("ready\n");
process.once("SIGTERM", () => {
  void queue.close(5_000).then(() => {
    redis.disconnect();
    process.exit(0);
  });
});
