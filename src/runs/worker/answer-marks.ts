// A run's final answer is shown once, and so is each approval card it pauses with. Once the
// surface has shown it, the runner records so under the run's id (the answer with the message it
// was posted as, when the surface tells it; a card under its call id), before it marks the message
// done, clears the checkpoints or drops the approval record. When one of those writes fails, the
// next start takes the run up again (a replay of its tail); the replay finds the mark, finishes the
// clean-up and shows nothing. A crash between the post and the mark can still show it twice: the
// post and the store can't be one step, and twice beats never.
import { z } from "zod";
import type { KeyValueStore } from "../../memory/types.js";

const MarkSchema = z.object({ at: z.number(), messageId: z.string().optional() });
export type AnswerMark = z.infer<typeof MarkSchema>;

const markKey = (runId: string) => `answered:${runId}`;
const cardKey = (runId: string, callId: string) => `answered:${runId}:card:${callId}`;
/** Longer than an unfinished intake record, a waiting approval or a ledger entry is kept (7 days): any replay finds it. */
const MARK_TTL_MS = 8 * 24 * 60 * 60_000;

export interface AnswerMarks {
  /** The mark of a run whose answer was shown, else undefined (also for a damaged one). Rejects when the store fails. */
  find(runId: string): Promise<AnswerMark | undefined>;
  /** Records that the run's answer was shown. Rejects when the store fails. */
  record(runId: string, mark: AnswerMark): Promise<void>;
  /** Whether the card asking for a decision on `callId` was shown. Rejects when the store fails. */
  cardShown(runId: string, callId: string): Promise<boolean>;
  /** Records that the card for `callId` was shown. Rejects when the store fails. */
  recordCard(runId: string, callId: string, mark: AnswerMark): Promise<void>;
}

export function createAnswerMarks(store: KeyValueStore): AnswerMarks {
  return {
    async find(runId) {
      const parsed = MarkSchema.safeParse(await store.get(markKey(runId)));
      return parsed.success ? parsed.data : undefined;
    },
    record: (runId, mark) => store.set(markKey(runId), mark, MARK_TTL_MS),
    async cardShown(runId, callId) {
      return MarkSchema.safeParse(await store.get(cardKey(runId, callId))).success;
    },
    recordCard: (runId, callId, mark) => store.set(cardKey(runId, callId), mark, MARK_TTL_MS),
  };
}
