// Serialises tasks per key (a conversation) and caps how many run at once overall. A task
// waiting for its key's turn holds no global slot, so one busy conversation never starves
// the others. Every task submitted runs exactly once, in arrival order within its key.

export interface RunQueue {
  /** Resolves or rejects with the task's own result once it has run. */
  run<T>(key: string, task: () => Promise<T>): Promise<T>;
  /** Resolves when nothing is running or waiting (for graceful shutdown). */
  idle(): Promise<void>;
  /** Whether a task of this key is running or waiting: when not, a new task of the key is the first in its lane. */
  busy(key: string): boolean;
  /** Tasks executing now. */
  readonly running: number;
  /** Tasks waiting for their key's turn or for a global slot. */
  readonly queued: number;
}

interface Job {
  readonly key: string;
  readonly start: () => Promise<void>;
}

export function createRunQueue(maxConcurrent: number): RunQueue {
  if (maxConcurrent !== Number.POSITIVE_INFINITY && !(Number.isInteger(maxConcurrent) && maxConcurrent >= 1)) {
    throw new RangeError(`maxConcurrent must be a whole number of at least 1 (got ${maxConcurrent})`);
  }
  // Per key, in arrival order; the first job of a lane is running or waiting in `ready`.
  const lanes = new Map<string, Job[]>();
  // Lane heads waiting for a global slot, in the order they became next in line.
  const ready: Job[] = [];
  let running = 0;
  let queued = 0;
  let idleWaiters: Array<() => void> = [];

  const pump = (): void => {
    while (running < maxConcurrent && ready.length > 0) {
      const job = ready.shift() as Job;
      running += 1;
      queued -= 1;
      void job.start().finally(() => finish(job));
    }
    if (running === 0 && queued === 0 && idleWaiters.length > 0) {
      const waiters = idleWaiters;
      idleWaiters = [];
      for (const wake of waiters) wake();
    }
  };

  const finish = (job: Job): void => {
    running -= 1;
    const lane = lanes.get(job.key) as Job[];
    lane.shift();
    const next = lane[0];
    if (next === undefined) lanes.delete(job.key);
    else ready.push(next);
    pump();
  };

  return {
    run<T>(key: string, task: () => Promise<T>): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        const job: Job = {
          key,
          start: () => Promise.resolve().then(task).then(resolve, reject),
        };
        queued += 1;
        const lane = lanes.get(key);
        if (lane === undefined) {
          lanes.set(key, [job]);
          ready.push(job);
          pump();
        } else {
          lane.push(job);
        }
      });
    },
    idle(): Promise<void> {
      if (running === 0 && queued === 0) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },
    busy(key: string): boolean {
      return lanes.has(key);
    },
    get running() {
      return running;
    },
    get queued() {
      return queued;
    },
  };
}
