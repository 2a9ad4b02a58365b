// What the process opened, and how to close it: each resource registers its close as it opens,
// and every exit (a start that fails half-way, SIGTERM, a fatal error) disposes the same stack.
// Plain reverse order would be wrong: the port opens first but must stop taking work first. So
// each close names its shutdown phase, the phases run in SHUTDOWN_PHASES order, and within a
// phase the closes run in reverse of their opening (what opened later may lean on what opened
// earlier).
import type { Logger } from "./logger.js";

/**
 * - `intake`: stop taking work (readiness and the ports answer 503, no more schedule slots);
 * - `runs`: runs in flight reach their next checkpoint and post what they have;
 * - `clients`: the platform clients and the other listeners close (a client closed earlier could not post);
 * - `store`: the last writes (audit, run records), then the store itself.
 */
export const SHUTDOWN_PHASES = ["intake", "runs", "clients", "store"] as const;
export type ShutdownPhase = (typeof SHUTDOWN_PHASES)[number];

/** Awaited when it returns a promise, which must settle; a throw or rejection is logged with its name and the next close runs anyway. */
export type Close = () => unknown;

export interface ResourceStack {
  /** Call right after the resource opened. `name` is what the log says when its close fails. */
  defer(phase: ShutdownPhase, name: string, close: Close): void;
  /** Runs every close once, phase by phase. The same promise on every call; never rejects. */
  dispose(): Promise<void>;
  /** Milliseconds since dispose began (0 before), so a close can take what is left of a shutdown budget. */
  elapsedMs(): number;
}

interface Entry {
  readonly phase: ShutdownPhase;
  readonly name: string;
  readonly close: Close;
}

export function createResourceStack(logger: Logger, clock: () => number = Date.now): ResourceStack {
  const entries: Entry[] = [];
  let disposing: Promise<void> | undefined;
  let since: number | undefined;

  async function closeOne(entry: Entry): Promise<void> {
    try {
      await entry.close();
    } catch (error) {
      logger.warn({ err: error, phase: entry.phase }, `${entry.name} did not close cleanly`);
    }
  }

  async function disposeAll(): Promise<void> {
    for (const phase of SHUTDOWN_PHASES)
      for (const entry of entries.filter((each) => each.phase === phase).reverse()) await closeOne(entry);
  }

  return {
    defer(phase, name, close) {
      // A resource that opens while the stack is closing (a start still under way) closes at once.
      if (disposing) void disposing.then(() => closeOne({ phase, name, close }));
      else entries.push({ phase, name, close });
    },
    dispose() {
      since ??= clock();
      disposing ??= disposeAll();
      return disposing;
    },
    elapsedMs: () => (since === undefined ? 0 : clock() - since),
  };
}
