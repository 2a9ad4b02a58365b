// Starts bot-like worker processes (bullmq-worker-process.ts) on one Redis and reads back what
// they did, for the multi-process queue tests and the workers bench.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import type { Redis } from "ioredis";
import type { LogEntry } from "./bullmq-worker-process.js";

const SCRIPT = fileURLToPath(new URL("./bullmq-worker-process.ts", import.meta.url));

export interface WorkerProcess {
  readonly pid: number;
  readonly child: ChildProcess;
  /** Resolves with the exit code (null when killed by a signal). */
  readonly exited: Promise<number | null>;
}

export async function startWorkerProcess(
  redisUrl: string,
  queueName: string,
  concurrency = 8,
  workMs = 10,
  env: NodeJS.ProcessEnv = {},
): Promise<WorkerProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", SCRIPT, redisUrl, queueName, String(concurrency), String(workMs)], {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, ...env },
  });
  const exited = once(child, "exit").then(([code]) => code as number | null);
  await new Promise<void>((resolve, reject) => {
    let output = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("ready\n")) resolve();
    });
    void exited.then((code) => reject(new Error(`worker process exited with ${code} before it was ready`)));
  });
  return { pid: child.pid!, child, exited };
}

/** Resolves once `count` items have ended, woken by each end (the workers push to `progress`). */
export async function untilEnded(redis: Redis, count: number): Promise<void> {
  while (Number(await redis.llen("log-ends")) < count) await redis.blpop("progress", 1);
}

/** Resolves once `count` more item starts happened (the workers push to `starts`). */
export async function untilStarted(redis: Redis, count: number): Promise<void> {
  for (let started = 0; started < count; started += 1) await redis.blpop("starts", 0);
}

export async function readLog(redis: Redis): Promise<LogEntry[]> {
  return (await redis.lrange("log", 0, -1)).map((line) => JSON.parse(line) as LogEntry);
}

export interface LogCheck {
  /** Items that ended more or less than once. */
  readonly notOnce: string[];
  /** Conversations whose items ended out of order, or where an item started before the previous one ended. */
  readonly outOfOrder: string[];
  /** Conversations where two live processes worked at the same time. */
  readonly overlapping: string[];
  /** Ends per process id. */
  readonly endsByPid: Map<number, number>;
}

/** `expected`: per conversation, its item ids in the order they were added. `killed`: pids whose starts never end. */
export function checkLog(
  entries: readonly LogEntry[],
  expected: ReadonlyMap<string, readonly string[]>,
  killed: ReadonlySet<number> = new Set(),
): LogCheck {
  const ends = new Map<string, number>();
  const endsByPid = new Map<number, number>();
  const byConversation = new Map<string, LogEntry[]>();
  for (const entry of entries) {
    if (entry.phase === "end") {
      ends.set(entry.id, (ends.get(entry.id) ?? 0) + 1);
      endsByPid.set(entry.pid, (endsByPid.get(entry.pid) ?? 0) + 1);
    }
    byConversation.set(entry.conversation, [...(byConversation.get(entry.conversation) ?? []), entry]);
  }
  const notOnce = [...expected.values()].flat().filter((id) => ends.get(id) !== 1);
  const outOfOrder: string[] = [];
  const overlapping: string[] = [];
  for (const [conversation, ids] of expected) {
    const log = byConversation.get(conversation) ?? [];
    const endOrder = log.filter((entry) => entry.phase === "end").map((entry) => entry.id);
    let finished = 0;
    let inOrder = endOrder.join(",") === ids.join(",");
    let active: LogEntry | undefined;
    for (const entry of log) {
      if (entry.phase === "start") {
        // An item may only start once every item before it ended.
        if (ids.indexOf(entry.id) !== finished) inOrder = false;
        // The same start twice from one process is a command the client sent again after a Redis restart.
        const resent = active?.pid === entry.pid && active.id === entry.id;
        if (active && !resent && !killed.has(active.pid)) overlapping.push(conversation);
        active = entry;
      } else {
        finished += 1;
        active = undefined;
      }
    }
    if (!inOrder) outOfOrder.push(conversation);
  }
  return { notOnce, outOfOrder, overlapping: [...new Set(overlapping)], endsByPid };
}
