// One work item, handed to the worker by the queue: a message's run, or a paused run's resume or
// expiry. The queue takes a failed item up again (with backoff); a message whose run failed here
// is remembered for a redelivery to take it up sooner, and a caller waiting for a paused run's
// item (the sweep of due approvals) is told whether it ended the run.
import type { Task } from "../api/task.js";
import type { Intake } from "../intake/submit.js";
import type { ItemEnd, WorkItem } from "../queue/work-queue.js";
import { handleMessage } from "./message-item.js";
import { approvalKey, handlePaused } from "./paused-item.js";
import type { WorkContext } from "./work-context.js";

export interface WorkItems {
  handle(item: WorkItem, signal: AbortSignal): Promise<ItemEnd>;
  /** A task asked with `ask`, run without a record: its item finds the task here. */
  readonly localTasks: Map<string, Task>;
  /** Resolves with whether the paused run's item ended it, once an item for it is handled. */
  awaitPaused(runId: string, callId: string): Promise<boolean>;
}

export function createWorkItems(work: WorkContext, intake: Pick<Intake, "failed">): WorkItems {
  const localTasks = new Map<string, Task>();
  const pausedDone = new Map<string, (ended: boolean) => void>();

  return {
    localTasks,
    awaitPaused(runId, callId) {
      return new Promise<boolean>((resolve) => pausedDone.set(approvalKey(runId, callId), resolve));
    },
    async handle(item, signal) {
      if (item.kind === "run")
        return handleMessage(work, localTasks, item, signal).catch((error: unknown) => {
          intake.failed(item.intakeId);
          throw error;
        });
      let ended = false;
      try {
        const end = await handlePaused(work, item, signal);
        ended = end === "ended";
        return end === "interrupted" ? "interrupted" : "done";
      } finally {
        const key = approvalKey(item.runId, item.callId);
        pausedDone.get(key)?.(ended);
        pausedDone.delete(key);
      }
    },
  };
}
