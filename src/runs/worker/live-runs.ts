// The run in flight in each conversation, and who asked it: what a message under the `interrupt`
// policy stops (interrupting.ts). Written when a message's run starts and cleared when it ends;
// one a crash left behind names a run that is not running, which a Stop then says.
import { z } from "zod";
import type { Person } from "../../contracts/types.js";
import type { Logger } from "../../logger.js";
import type { KeyValueStore } from "../../memory/types.js";

/** Longer than any run; a mark a crash left outlives it no longer. */
const LIVE_TTL_MS = 24 * 60 * 60_000;

const LiveRun = z.object({ runId: z.string().min(1), requester: z.object({ id: z.string().min(1), name: z.string().optional() }) });
export type LiveRun = z.infer<typeof LiveRun>;

const liveKey = (conversationKey: string) => `conversation:live:${conversationKey}`;

export interface LiveRuns {
  /** Never rejects: without the mark, a message can't interrupt the run (it is queued). */
  started(conversationKey: string, runId: string, requester: Person): Promise<void>;
  /** Never rejects. */
  ended(conversationKey: string, runId: string): Promise<void>;
  /** The run in flight in the conversation, if one is known; rejects when the store fails. */
  of(conversationKey: string): Promise<LiveRun | undefined>;
}

export function createLiveRuns(store: KeyValueStore, logger: Logger): LiveRuns {
  const of = async (conversationKey: string) => {
    const parsed = LiveRun.safeParse(await store.get(liveKey(conversationKey)));
    return parsed.success ? parsed.data : undefined;
  };
  const warn = (runId: string) => (error: unknown) =>
    logger.warn({ err: error, runId }, "could not keep which run is in flight in its conversation");
  return {
    of,
    started: (conversationKey, runId, requester) =>
      store
        .set(
          liveKey(conversationKey),
          { runId, requester: { id: requester.id, ...(requester.name ? { name: requester.name } : {}) } },
          LIVE_TTL_MS,
        )
        .catch(warn(runId)),
    async ended(conversationKey, runId) {
      try {
        // Only its own mark: the conversation's next run may have written one already (another process).
        if ((await of(conversationKey))?.runId === runId) await store.delete(liveKey(conversationKey));
      } catch (error) {
        warn(runId)(error);
      }
    },
  };
}
