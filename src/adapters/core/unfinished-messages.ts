// The messages a run's display holds open right now (a streamed message not stopped yet, an
// answer still being edited), kept in the shared store under the run, so the process that takes
// the run over after a crash can end them: stopped, and marked as answered again below, instead
// of left looking as if the bot were still typing. While the run's writes go on, the record also
// names the threads where the display may be starting a stream: the platform names a streamed
// message only in its answer to the start, so a process that died before it heard back (or before
// it recorded what it heard) left a stream only the thread can tell of. A record goes once nothing
// is open, and a day after its last change at the latest.
import { z } from "zod";
import type { Logger } from "../../logger.js";
import type { KeyValueStore } from "../../memory/types.js";

/** A message a display holds open: `text`, what the model writes (answer or aside); `trace`, the step trace. */
export const UnfinishedMessageSchema = z.object({
  channel: z.string().min(1),
  id: z.string().min(1),
  kind: z.enum(["text", "trace"]),
  /** True while the platform shows it streaming; false for a message being edited. */
  streaming: z.boolean(),
});
export type UnfinishedMessage = z.infer<typeof UnfinishedMessageSchema>;

/** A thread where the display may be starting a stream whose message it has no id of yet. */
export const StreamThreadSchema = z.object({ channel: z.string().min(1), thread: z.string().min(1) });
export type StreamThread = z.infer<typeof StreamThreadSchema>;

/** What a record holds; records written before stream threads existed hold messages only. */
export type LeftOpen = UnfinishedMessage | StreamThread;

export const isStreamThread = (entry: LeftOpen): entry is StreamThread => "thread" in entry;
export const isOpenMessage = (entry: LeftOpen): entry is UnfinishedMessage => !isStreamThread(entry);

const Stored = z.array(z.union([UnfinishedMessageSchema, StreamThreadSchema]));

/** Longer than any run; a record outliving its run is read only if the run is ever taken up again. */
const KEPT_MS = 24 * 60 * 60_000;

export interface UnfinishedMessages {
  /** What the display holds open now (none: the record goes). Never throws: a failure is logged. */
  save(runId: string, open: readonly LeftOpen[]): Promise<void>;
  /** What an earlier process left open for the run; it stays until the next save replaces it. Never throws: unreadable is none. */
  read(runId: string): Promise<readonly LeftOpen[]>;
}

export function createUnfinishedMessages(store: KeyValueStore, logger: Logger, keyPrefix: string): UnfinishedMessages {
  const keyOf = (runId: string) => `${keyPrefix}:unfinished:${runId}`;
  const failed = (runId: string, what: string) => (error: unknown) =>
    logger.warn({ err: error, runId }, `could not ${what} the messages a run holds open; a restart may leave one looking unfinished`);
  return {
    async save(runId, open) {
      const key = keyOf(runId);
      await (open.length === 0 ? store.delete(key) : store.set(key, open, KEPT_MS)).then(() => undefined, failed(runId, "record"));
    },
    async read(runId) {
      const raw = await store.get(keyOf(runId)).catch(failed(runId, "read"));
      if (raw === undefined) return [];
      const parsed = Stored.safeParse(raw);
      if (!parsed.success) logger.warn({ runId }, "ignoring an invalid record of a run's open messages");
      return parsed.success ? parsed.data : [];
    },
  };
}
