// Stop requests for runs in progress, across processes: the click can land on any bot process,
// the run lives on one. A request is kept in the store under the run id; the process running
// the run aborts it at once when the request is its own, and otherwise notices the store flag
// on its next poll. Only the requester or an approver may stop a run.
import { z } from "zod";
import { stoppedByStop } from "../agent/guards/external-stops.js";
import type { Person } from "../agent/types.js";
import type { Logger } from "../logger.js";
import type { KeyValueStore } from "../memory/types.js";

export type StopResult =
  /** The run stops now (here) or at the running process's next poll. */
  | { readonly kind: "stopping" }
  | { readonly kind: "not_allowed"; readonly requester: Person }
  /** Finished, waiting for an approval, or never known. */
  | { readonly kind: "not_running" };

export interface StopWatch {
  /** Aborts, with the run's GuardStop as reason, once someone stops the run. */
  readonly signal: AbortSignal;
  /** The run ended: forget it here and in the store. Never rejects. */
  dispose(): Promise<void>;
}

export interface RunStops {
  /** Called when a run starts or resumes on this process. */
  watch(runId: string, requester: Person): StopWatch;
  /** A person pressed Stop on `runId`; `isApprover` as the adapter found it (ids, roles). */
  request(runId: string, by: Person, isApprover: boolean): Promise<StopResult>;
  close(): void;
}

export interface RunStopsOptions {
  readonly store: KeyValueStore;
  readonly logger: Logger;
  /** How often the running process looks for stops asked on other processes. */
  readonly pollMs?: number;
  /** How long a live or stop entry outlives a process that died without clearing it. */
  readonly ttlMs: number;
}

const PersonRecord = z.object({ id: z.string().min(1), name: z.string().optional() });
const LiveRecord = z.object({ requester: PersonRecord });
const StopRecord = z.object({ by: PersonRecord });

const liveKey = (runId: string) => `run:live:${runId}`;
const stopKey = (runId: string) => `run:stop:${runId}`;
const DEFAULT_POLL_MS = 250;

export function createRunStops(options: RunStopsOptions): RunStops {
  const { store, logger, ttlMs } = options;
  const watched = new Map<string, AbortController>();
  let timer: NodeJS.Timeout | undefined;

  const abort = (runId: string, by: Person) => watched.get(runId)?.abort(stoppedByStop(by));

  async function poll(): Promise<void> {
    for (const runId of [...watched.keys()]) {
      const raw = await store.get(stopKey(runId)).catch((error: unknown) => logger.warn({ err: error, runId }, "could not look for a stop request"));
      const stop = StopRecord.safeParse(raw);
      if (stop.success) abort(runId, stop.data.by);
    }
  }

  function schedule(): void {
    if (timer || watched.size === 0) return;
    timer = setTimeout(() => {
      void poll().finally(() => {
        timer = undefined;
        schedule();
      });
    }, options.pollMs ?? DEFAULT_POLL_MS);
    timer.unref();
  }

  return {
    watch(runId, requester) {
      const controller = watched.get(runId) ?? new AbortController();
      watched.set(runId, controller);
      store.set(liveKey(runId), { requester }, ttlMs).catch((error: unknown) => logger.warn({ err: error, runId }, "could not record a run as stoppable"));
      schedule();
      return {
        signal: controller.signal,
        async dispose() {
          if (watched.get(runId) === controller) watched.delete(runId);
          await Promise.all([liveKey(runId), stopKey(runId)].map((key) => store.delete(key).catch((error: unknown) => logger.warn({ err: error, key }, "could not clear a finished run's stop entry"))));
        },
      };
    },
    async request(runId, by, isApprover) {
      const live = LiveRecord.safeParse(await store.get(liveKey(runId)));
      if (!live.success) return { kind: "not_running" };
      if (live.data.requester.id !== by.id && !isApprover) return { kind: "not_allowed", requester: live.data.requester };
      await store.set(stopKey(runId), { by }, ttlMs);
      abort(runId, by);
      return { kind: "stopping" };
    },
    close() {
      clearTimeout(timer);
      timer = undefined;
    },
  };
}
