// A run no turn waits for (a schedule's slot, a question the last session left running) that waits
// for a write's approval in the console: its owner is the console's person, so it is asked at the
// prompt like their own, one at a time and in order, as soon as the session is free (nothing
// running, nothing else being asked). An expired one is dropped unasked.
import type { PendingApproval } from "../../contracts/types.js";

export interface SlotApprovals {
  /** A run no turn waits for paused on this approval. */
  offer(pending: PendingApproval): void;
  /** The session may be free now: asks the next one waiting. */
  pump(): void;
  /** The approval expired: it is not asked any more. */
  drop(runId: string): void;
}

/** `ask` asks one and resolves once it is decided (or left); `free` says whether the prompt can ask now. */
export function createSlotApprovals(ask: (pending: PendingApproval) => Promise<void>, free: () => boolean): SlotApprovals {
  const queue: PendingApproval[] = [];
  let asking = false;

  async function next(): Promise<void> {
    if (asking || !free()) return;
    const pending = queue.shift();
    if (!pending) return;
    asking = true;
    try {
      await ask(pending);
    } finally {
      asking = false;
    }
    await next();
  }

  return {
    offer(pending) {
      queue.push(pending);
      void next();
    },
    pump: () => void next(),
    drop(runId) {
      const at = queue.findIndex((pending) => pending.runId === runId);
      if (at >= 0) queue.splice(at, 1);
    },
  };
}
