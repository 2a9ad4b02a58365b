// Several worker processes on one Redis (the BullMQ work queue): 240 conversations, each run
// two model calls of 200 ms, MAX_CONCURRENT_RUNS=8 per process. One process against three:
// three should finish in at most 0.4× the time of one. The worker processes are the tests'
// bot-like workers (test/support/bullmq-worker-process.ts): the queue, its Redis traffic and
// a handler that reads and writes its record like the runner, with the model as a timer.
import { Redis } from "ioredis";
import { silentLogger } from "../src/logger.js";
import { createBullmqWorkQueue } from "../src/runs/queue/bullmq-work-queue.js";
import { startWorkerProcess, untilEnded } from "../test/support/bullmq-cluster.js";
import { redisServerInstalled, startRedisServer } from "../test/support/redis-server.js";
import { printTable } from "./support/stats.js";

const CONVERSATIONS = 240;
const CALL_MS = 200;
const CALLS_PER_RUN = 2;
const CONCURRENCY = 8;
const WARM_UP = 48;

async function measure(url: string, processes: number): Promise<number> {
  const redis = new Redis(url);
  await redis.flushdb();
  const name = `bench-${processes}`;
  const workers = await Promise.all(
    Array.from({ length: processes }, () => startWorkerProcess(url, name, CONCURRENCY, CALL_MS * CALLS_PER_RUN)),
  );
  const queue = createBullmqWorkQueue({ redisUrl: url, name, logger: silentLogger });
  try {
    const burst = async (prefix: string, count: number): Promise<number> => {
      const ended = Number(await redis.llen("log-ends"));
      const started = performance.now();
      await Promise.all(
        Array.from({ length: count }, (_, index) =>
          queue.add({ kind: "run", conversationKey: `slack:T:C${index}:${prefix}`, intakeId: `${prefix}-${index}` }),
        ),
      );
      await untilEnded(redis, ended + count);
      return performance.now() - started;
    };
    await burst("warm", WARM_UP);
    return await burst("measured", CONVERSATIONS);
  } finally {
    await queue.close(0);
    for (const worker of workers) worker.child.kill("SIGKILL");
    await Promise.all(workers.map((worker) => worker.exited));
    redis.disconnect();
  }
}

export async function run(): Promise<void> {
  if (!redisServerInstalled()) {
    console.log("(skipped: redis-server is not installed)");
    return;
  }
  const server = await startRedisServer();
  try {
    const one = await measure(server.url, 1);
    const three = await measure(server.url, 3);
    const ideal = (processes: number) => Math.ceil(CONVERSATIONS / (CONCURRENCY * processes)) * CALL_MS * CALLS_PER_RUN;
    console.log(
      `${CONVERSATIONS} conversations, ${CALLS_PER_RUN} model calls of ${CALL_MS} ms per run, MAX_CONCURRENT_RUNS=${CONCURRENCY} per process`,
    );
    printTable(
      ["processes", "total ms", "ideal ms"],
      [
        ["1", one.toFixed(0), String(ideal(1))],
        ["3", three.toFixed(0), String(ideal(3))],
      ],
    );
    console.log(`3 processes / 1 process: ${(three / one).toFixed(2)}× (target ≤ 0.40×)`);
  } finally {
    await server.stop();
  }
}
