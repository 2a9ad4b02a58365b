// The seam between intake and the workers. Two implementations: in-process (the SQLite default,
// one bot process) and BullMQ on Redis (several bot processes share the work). Items carry ids
// only: what to run lives in the store (intake records, checkpoints, paused runs), so a queue
// that loses or repeats an item can't lose or repeat a person's work.

export type WorkItem =
  /** Run (or resume from its checkpoint) the message recorded under this intake id. */
  | { readonly kind: "run"; readonly conversationKey: string; readonly intakeId: string }
  /** Resume a paused run whose decision on `callId` is claimed. */
  | { readonly kind: "resume"; readonly conversationKey: string; readonly runId: string; readonly callId: string }
  /** End a paused run whose approval on `callId` may have expired (a no-op when it was decided). */
  | { readonly kind: "expire"; readonly conversationKey: string; readonly runId: string; readonly callId: string };

/**
 * How a handler left its item. `interrupted`: it stopped at a checkpoint for shutdown, unfinished, so the item stays at
 * the head of its conversation for whoever goes on (the conversation's next item must not overtake it). Anything
 * else (undefined included): the item is finished.
 */
export type ItemEnd = "done" | "interrupted";

/** Must settle; a rejection is logged and the item is taken up again later (its record is still unfinished). */
export type WorkHandler = (item: WorkItem, signal: AbortSignal) => Promise<ItemEnd | undefined>;

export interface WorkQueue {
  /**
   * Adds an item. Items of one conversation are handled one at a time, in the order added,
   * across every process; `delayMs` holds the item back (approval expiry).
   */
  add(item: WorkItem, options?: { readonly delayMs?: number }): Promise<void>;
  /** Starts handling items, at most `concurrency` at once in this process. Called once. */
  start(handler: WorkHandler, concurrency: number): void;
  /** Items added and not yet finished (waiting, delayed or running), across processes where it can tell. */
  depth(): Promise<number>;
  /**
   * Stops taking items, aborts the handlers' signals after `graceMs`, and resolves when every
   * running handler returned. Items not finished stay for the next start (or another process).
   */
  close(graceMs: number): Promise<void>;
}
