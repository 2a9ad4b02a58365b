// Short-term memory across runs: the last turns of a conversation (the person's message and
// the final answer), loaded at the start of the next run so follow-ups work. Each side of a turn
// is kept to a share of the token budget, so one huge message can't push out every turn before it.
import { z } from "zod";
import type { Logger } from "../logger.js";
import { createRunQueue } from "./run-queue.js";
import type { KeyValueStore, Turn } from "./types.js";

export interface ConversationHistory {
  /** Oldest first: the newest turns within maxTurns and maxTokens (trimmed in blocks, see TRIM_TO_SHARE). */
  load(conversationKey: string): Promise<Turn[]>;
  /** Adds a turn (each side cut to a quarter of maxTokens, with a note); past maxTurns or maxTokens the oldest go in a block. */
  append(conversationKey: string, turn: Turn): Promise<void>;
  clear(conversationKey: string): Promise<void>;
}

export interface HistoryOptions {
  readonly maxTurns: number;
  readonly maxTokens: number;
  /** May be asynchronous: a count that gives the event loop back keeps a huge stored turn from holding it. */
  readonly countTokens: (text: string) => number | Promise<number>;
  readonly logger: Logger;
}

const turnSchema = z.object({
  user: z.string(),
  assistant: z.string(),
  at: z.number().finite(),
  asker: z.object({ id: z.string(), name: z.string().optional() }).optional(),
  madeFromData: z.boolean().optional(),
});

/** The share of the history budget one side of a turn (the message or the answer) may take. */
const SIDE_SHARE = 0.25;
/**
 * Past a limit the oldest turns go in a block, down to this share of each limit, not one per run:
 * the history then begins with the same turn for several runs, so the prompt's prefix stays
 * byte-identical and a model server's prompt cache can reuse it while the window slides.
 */
const TRIM_TO_SHARE = 2 / 3;
/** Longer texts are not counted whole before cutting: no tokenizer packs more characters than this into a token on average. */
const MAX_CHARS_PER_TOKEN = 8;
const CUT_ATTEMPTS = 8;

/**
 * `text` if it fits `limit` tokens, else its start and a note saying it was cut, together within
 * `limit` when the note itself fits. Never counts more than a few `limit`s of text at once.
 */
export async function cutToTokens(text: string, limit: number, countTokens: HistoryOptions["countTokens"]): Promise<string> {
  // A byte-level tokenizer makes at most one token per UTF-8 byte.
  if (Buffer.byteLength(text, "utf8") <= limit) return text;
  if (text.length <= limit * MAX_CHARS_PER_TOKEN && (await countTokens(text)) <= limit) return text;
  const note = `\n[… cut: the message was ${text.length} characters long; only its start is kept]`;
  const budget = limit - (await countTokens(note));
  let end = Math.min(text.length, limit * 4);
  for (let attempt = 0; attempt < CUT_ATTEMPTS && budget > 0 && end > 0; attempt += 1) {
    const prefix = withoutBrokenPair(text.slice(0, end));
    const tokens = await countTokens(prefix);
    if (tokens <= budget) return prefix + note;
    end = Math.floor((end * budget * 0.9) / tokens);
  }
  return note.trimStart();
}

/** A cut between the two halves of a surrogate pair would leave half a character. */
function withoutBrokenPair(prefix: string): string {
  const last = prefix.charCodeAt(prefix.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? prefix.slice(0, -1) : prefix;
}

export function historyKey(conversationKey: string): string {
  return `history:${conversationKey}`;
}

export function createConversationHistory(store: KeyValueStore, options: HistoryOptions): ConversationHistory {
  const { maxTurns, maxTokens, countTokens, logger } = options;
  const sideLimit = Math.max(1, Math.floor(maxTokens * SIDE_SHARE));
  // Also applied on load: turns stored before this bound existed, or under a larger budget.
  const bounded = async (turn: Turn): Promise<Turn> => ({
    ...turn,
    user: await cutToTokens(turn.user, sideLimit, countTokens),
    assistant: await cutToTokens(turn.assistant, sideLimit, countTokens),
  });
  // Appends to one conversation must not overwrite each other within this process.
  const writes = createRunQueue(Number.POSITIVE_INFINITY);
  /** The turns unchanged while both limits hold; past one, without the oldest block (see TRIM_TO_SHARE). */
  const withinLimits = async (turns: readonly Turn[]): Promise<Turn[]> => {
    const sizes: number[] = [];
    for (const turn of turns) sizes.push((await countTokens(turn.user)) + (await countTokens(turn.assistant)));
    let total = sizes.reduce((sum, size) => sum + size, 0);
    if (turns.length <= maxTurns && total <= maxTokens) return [...turns];
    const keepTurns = Math.floor(maxTurns * TRIM_TO_SHARE);
    const keepTokens = Math.floor(maxTokens * TRIM_TO_SHARE);
    let first = 0;
    while (first < turns.length && (turns.length - first > keepTurns || total > keepTokens)) total -= sizes[first++]!;
    return turns.slice(first);
  };

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
      else
        logger.warn({ conversationKey, index, issues: parsed.error.issues }, "Skipped a stored conversation turn that failed validation");
    }
    return turns;
  };

  return {
    async load(conversationKey) {
      const turns: Turn[] = [];
      // Stored under larger limits (or before they existed), a history is trimmed the same way on load.
      for (const turn of await read(conversationKey)) turns.push(await bounded(turn));
      return withinLimits(turns);
    },
    append(conversationKey, turn) {
      return writes.run(conversationKey, async () => {
        const turns = await read(conversationKey);
        turns.push(await bounded(turnSchema.parse(turn)));
        await store.set(historyKey(conversationKey), await withinLimits(turns));
      });
    },
    async clear(conversationKey) {
      await writes.run(conversationKey, () => store.delete(historyKey(conversationKey)));
    },
  };
}
