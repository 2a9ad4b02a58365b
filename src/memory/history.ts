// Short-term memory across runs: the last turns of a conversation (the person's message and
// the final answer), loaded at the start of the next run so follow-ups work.
import { z } from "zod";
import type { Logger } from "../logger.js";
import { createRunQueue } from "./run-queue.js";
import type { KeyValueStore, Turn } from "./types.js";

export interface ConversationHistory {
  /** Oldest first: the newest turns that fit both maxTurns and maxTokens. */
  load(conversationKey: string): Promise<Turn[]>;
  /** Adds a turn and keeps at most maxTurns. */
  append(conversationKey: string, turn: Turn): Promise<void>;
  clear(conversationKey: string): Promise<void>;
}

export interface HistoryOptions {
  readonly maxTurns: number;
  readonly maxTokens: number;
  readonly countTokens: (text: string) => number;
  readonly logger: Logger;
}

const turnSchema = z.object({ user: z.string(), assistant: z.string(), at: z.number().finite() });

export function historyKey(conversationKey: string): string {
  return `history:${conversationKey}`;
}

export function createConversationHistory(store: KeyValueStore, options: HistoryOptions): ConversationHistory {
  const { maxTurns, maxTokens, countTokens, logger } = options;
  // Appends to one conversation must not overwrite each other within this process.
  const writes = createRunQueue(Number.POSITIVE_INFINITY);

  const read = async (conversationKey: string): Promise<Turn[]> => {
    const record = await store.get(historyKey(conversationKey));
    if (record === undefined) return [];
    if (!Array.isArray(record)) {
      logger.warn({ conversationKey }, "Skipped a stored conversation history that is not a list of turns");
      return [];
    }
    const turns: Turn[] = [];
    for (const [index, item] of record.entries()) {
      const parsed = turnSchema.safeParse(item);
      if (parsed.success) turns.push(parsed.data);
      else logger.warn({ conversationKey, index, issues: parsed.error.issues }, "Skipped a stored conversation turn that failed validation");
    }
    return turns;
  };

  return {
    async load(conversationKey) {
      const turns = (await read(conversationKey)).slice(-maxTurns);
      let budget = maxTokens;
      let first = turns.length;
      while (first > 0) {
        const turn = turns[first - 1] as Turn;
        budget -= countTokens(turn.user) + countTokens(turn.assistant);
        if (budget < 0) break;
        first -= 1;
      }
      return turns.slice(first);
    },
    append(conversationKey, turn) {
      return writes.run(conversationKey, async () => {
        const turns = await read(conversationKey);
        turns.push(turnSchema.parse(turn));
        await store.set(historyKey(conversationKey), turns.slice(-maxTurns));
      });
    },
    async clear(conversationKey) {
      await writes.run(conversationKey, () => store.delete(historyKey(conversationKey)));
    },
  };
}
