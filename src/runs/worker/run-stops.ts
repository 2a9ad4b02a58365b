// Stop requests for runs in progress. A click that lands on the process running the run aborts
// it at once. With a store several processes share (Redis), the click can land on any of them:
// each run then has one record in the store (who asked it, and who stopped it once someone did),
// and the running process notices a stop asked elsewhere on its next poll. A poll reads one key,
// the latest request's mark, and its runs' records only when that changed: a few hundred runs in
// flight cost one read per poll, not one each. A store only this process uses (SQLite, whose
// file one process owns) needs no records at all. Who may stop a run is the authority's to say.
// A Stop also leaves a mark under the run (a rare write, kept as long as an unfinished message):
// a replay of the same part of the run (after a crash, or a store that failed as it finished) ends
// as stopped too, instead of going on as if nobody had pressed it.
import { randomBytes } from "node:crypto";
import { z } from "zod";
import { questionDeletedStop, stoppedByStop } from "../../agent/guards/external-stops.js";
import type { StopListener, StopSignal } from "../../agent/loop/loop-types.js";
import type { Person } from "../../contracts/types.js";
import type { Logger } from "../../logger.js";
import type { KeyValueStore } from "../../memory/types.js";

export type StopResult =
  /** The run stops now (here) or at the running process's next poll. */
  | { readonly kind: "stopping" }
  | { readonly kind: "not_allowed"; readonly requester: Person }
  /** Finished, waiting for an approval, or never known. */
  | { readonly kind: "not_running" };

export interface StopWatch {
  /** Aborts, with the run's GuardStop as reason, once someone stops the run. */
  readonly signal: StopSignal;
  /** The run ended: forgets it here at once and in the store in the background (the answer does not wait for the store). Never throws. */
  dispose(): void;
}

export interface RunStops {
  /**
   * Called when a run starts or resumes on this process; `segment` names the part of the run (the message, or the
   * decision it resumes with) that a Stop pressed now applies to. With `stoppedBy` (see stoppedBefore) it starts stopped.
   */
  watch(runId: string, requester: Person, segment: string, stoppedBy?: Person): StopWatch;
  /** Who stopped this segment of the run before (a replay of it must end as stopped), if anyone. Never rejects. */
  stoppedBefore(runId: string, segment: string): Promise<Person | undefined>;
  /** A person pressed Stop on `runId`; `mayStop` answers for the run's requester (the authority's rule). */
  request(runId: string, by: Person, mayStop: (requester: Person) => boolean): Promise<StopResult>;
  /** Its requester deleted the question of `runId`: it ends without a summary (questionDeletedStop), on whichever process runs it. */
  questionDeleted(runId: string, requester: Person): Promise<StopResult>;
  /** Stops polling; resolves once the records of runs that ended are cleared (or failed to be). */
  close(): Promise<void>;
}

export interface RunStopsOptions {
  readonly store: KeyValueStore;
  /** Other processes share the store and may take a click for a run here (Redis); false when this process owns it (SQLite). */
  readonly shared: boolean;
  readonly logger: Logger;
  /** How often the running process looks for stops asked on other processes. */
  readonly pollMs?: number;
  /** How long a run's record outlives a process that died without clearing it. */
  readonly ttlMs: number;
}

const PersonRecord = z.object({ id: z.string().min(1), name: z.string().optional() });
/** A run in flight; `stoppedBy` once someone pressed Stop. `segment` is absent in records of older versions. */
const RunRecord = z.object({
  requester: PersonRecord,
  stoppedBy: PersonRecord.optional(),
  segment: z.string().optional(),
  /** The stop is its question deleted (by `stoppedBy`, the requester), not a Stop. */
  deleted: z.boolean().optional(),
});
/** Who stopped which segment of a run. */
const StopMark = z.object({ by: PersonRecord, segment: z.string() });

const runKey = (runId: string) => `run:live:${runId}`;
const stopMarkKey = (runId: string) => `run:stopped:${runId}`;
/** As long as an unfinished message is kept (7 days), and a day more: any replay of a stopped run finds its mark. */
const STOP_MARK_TTL_MS = 8 * 24 * 60 * 60_000;
/** Changed by every stop request: a random mark, so an old value never comes back to hide a new request. */
const LATEST_STOP_KEY = "run:stops:latest";
const DEFAULT_POLL_MS = 250;

/**
 * A run's Stop, aborted at most once with the run's GuardStop as reason. Not an AbortController:
 * each AbortSignal gets a hidden class of its own in V8, a cost every run paid though few are stopped.
 */
class StopFlag implements StopSignal {
  aborted = false;
  reason: unknown = undefined;
  private listeners: StopListener[] = [];

  addEventListener(_type: "abort", listener: StopListener): void {
    this.listeners.push(listener);
  }

  removeEventListener(_type: "abort", listener: StopListener): void {
    this.listeners = this.listeners.filter((known) => known !== listener);
  }

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const listeners = this.listeners;
    this.listeners = [];
    for (const listener of listeners) typeof listener === "function" ? listener() : listener.handleEvent();
  }
}

export function createRunStops(options: RunStopsOptions): RunStops {
  const { store, logger, ttlMs, shared } = options;
  const watched = new Map<string, { readonly stop: StopFlag; readonly requester: Person; readonly segment: string }>();
  /** Records of ended runs being deleted, by run id: a run resumed meanwhile writes its record after that delete. */
  const clearing = new Map<string, Promise<unknown>>();
  let seenMark: unknown;
  let timer: NodeJS.Timeout | undefined;

  const abort = (runId: string, by: Person, deleted = false) =>
    watched.get(runId)?.stop.abort(deleted ? questionDeletedStop() : stoppedByStop(by));

  /** Never rejects: the stop itself goes on without its mark, only a replay would not know of it. */
  const markStopped = (runId: string, by: Person, segment: string | undefined): Promise<void> =>
    segment === undefined
      ? Promise.resolve()
      : store
          .set(stopMarkKey(runId), { by, segment }, STOP_MARK_TTL_MS)
          .catch((error: unknown) =>
            logger.warn({ err: error, runId }, "could not record a stop; a replay of the run would not know of it"),
          );

  async function poll(): Promise<void> {
    const mark = await store
      .get(LATEST_STOP_KEY)
      .catch((error: unknown) => logger.warn({ err: error }, "could not look for stop requests"));
    if (mark === undefined || mark === seenMark) return;
    seenMark = mark;
    await Promise.all(
      [...watched.keys()].map(async (runId) => {
        const record = RunRecord.safeParse(
          await store.get(runKey(runId)).catch((error: unknown) => logger.warn({ err: error, runId }, "could not look for a stop request")),
        );
        if (record.success && record.data.stoppedBy) abort(runId, record.data.stoppedBy, record.data.deleted === true);
      }),
    );
  }

  function schedule(): void {
    if (!shared || timer || watched.size === 0) return;
    timer = setTimeout(() => {
      void poll().finally(() => {
        timer = undefined;
        schedule();
      });
    }, options.pollMs ?? DEFAULT_POLL_MS);
    timer.unref();
  }

  return {
    watch(runId, requester, segment, stoppedBy) {
      const entry = watched.get(runId) ?? { stop: new StopFlag(), requester, segment };
      watched.set(runId, entry);
      if (stoppedBy) entry.stop.abort(stoppedByStop(stoppedBy));
      // Written fresh at every (re)start, so a stop left from before a pause does not stop the resumed run.
      if (shared) {
        void (clearing.get(runId) ?? Promise.resolve())
          .then(() => store.set(runKey(runId), { requester, segment }, ttlMs))
          .catch((error: unknown) => logger.warn({ err: error, runId }, "could not record a run as stoppable"));
      }
      schedule();
      return {
        signal: entry.stop,
        dispose() {
          if (watched.get(runId) === entry) watched.delete(runId);
          if (!shared) return;
          const cleared = store
            .delete(runKey(runId))
            .catch((error: unknown) => logger.warn({ err: error, runId }, "could not clear a finished run's stop entry"))
            .finally(() => {
              if (clearing.get(runId) === cleared) clearing.delete(runId);
            });
          clearing.set(runId, cleared);
        },
      };
    },
    async stoppedBefore(runId, segment) {
      const mark = StopMark.safeParse(
        await store
          .get(stopMarkKey(runId))
          .catch((error: unknown) => logger.warn({ err: error, runId }, "could not look for an earlier stop")),
      );
      return mark.success && mark.data.segment === segment ? mark.data.by : undefined;
    },
    request: (runId, by, mayStop) => stopRun(runId, by, mayStop, false),
    questionDeleted: (runId, requester) => stopRun(runId, requester, (asker) => asker.id === requester.id, true),
    async close() {
      clearTimeout(timer);
      timer = undefined;
      await Promise.all(clearing.values());
    },
  };

  async function stopRun(runId: string, by: Person, mayStop: (requester: Person) => boolean, deleted: boolean): Promise<StopResult> {
    const here = watched.get(runId);
    if (here) {
      if (!mayStop(here.requester)) return { kind: "not_allowed", requester: here.requester };
      // The first Stop names who stopped the run, here and in its mark; a later one changes nothing.
      if (here.stop.aborted) return { kind: "stopping" };
      abort(runId, by, deleted);
      // A replay of a run whose question is gone is not started at all (the intake record says so): no mark.
      if (!deleted) await markStopped(runId, by, here.segment);
      return { kind: "stopping" };
    }
    if (!shared) return { kind: "not_running" };
    const live = RunRecord.safeParse(await store.get(runKey(runId)));
    if (!live.success) return { kind: "not_running" };
    if (!mayStop(live.data.requester)) return { kind: "not_allowed", requester: live.data.requester };
    if (live.data.stoppedBy) return { kind: "stopping" }; // likewise: the record keeps the first

    // The record first, then the latest-stop key: a poll that sees the new key finds the stop.
    await store.set(runKey(runId), { ...live.data, stoppedBy: by, ...(deleted ? { deleted } : {}) }, ttlMs);
    if (!deleted) await markStopped(runId, by, live.data.segment);
    await store.set(LATEST_STOP_KEY, randomBytes(9).toString("base64url"), ttlMs);
    return { kind: "stopping" };
  }
}
