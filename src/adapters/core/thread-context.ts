// A mention inside a thread makes the thread the conversation: what other people wrote there
// before it becomes context for the run, newest first within a token budget (a long message
// costs work in proportion to the budget, never to its own length). The surface reads the
// thread and leaves out the bot's own messages and earlier questions to it; this file bounds it.
import type { z } from "zod";
import type { ChatMessage } from "../../contracts/types.js";
import type { Logger } from "../../logger.js";
import type { ContextLoader } from "../../runs/api/surface-hooks.js";
import type { TokenCounter } from "../../tokens/token-counter.js";

const THREAD_CONTEXT_TOKENS = 2_000;
const MESSAGE_OVERHEAD_TOKENS = 4;

/** One message people wrote in the thread, oldest first. */
export interface ThreadLine {
  /** How the model sees who wrote it, e.g. "<@U123>". */
  readonly author: string;
  readonly text: string;
}

/** The message's tokens when they fit `room`, else undefined: cut before counted. */
function tokensWithin(text: string, room: number, counter: TokenCounter): number | undefined {
  if (room < 1) return undefined;
  if (counter.truncate(text, room).truncated) return undefined;
  return counter.countText(text);
}

/** Pure: the newest lines that fit the budget, as user messages in the order they were written, counted by the model's `counter`. */
export function boundedThread(lines: readonly ThreadLine[], counter: TokenCounter, maxTokens = THREAD_CONTEXT_TOKENS): ChatMessage[] {
  const kept: ChatMessage[] = [];
  let used = 0;
  for (const line of [...lines].reverse()) {
    const content = `${line.author}: ${line.text}`;
    const tokens = tokensWithin(content, maxTokens - used - MESSAGE_OVERHEAD_TOKENS, counter);
    if (tokens === undefined) break;
    used += tokens + MESSAGE_OVERHEAD_TOKENS;
    kept.unshift({ role: "user", content });
  }
  return kept;
}

/**
 * A surface's context loader. The source was recorded at intake and is read back from the store
 * (untrusted: checked with `schema`); `load` reads the thread it names. Never throws: a source
 * that is not one of ours, or a thread that can't be read, gives no context (logged), and the
 * run goes on.
 */
export function threadContextLoader<S>(schema: z.ZodType<S>, logger: Logger, load: (source: S) => Promise<ChatMessage[]>): ContextLoader {
  return async (recorded) => {
    const parsed = schema.safeParse(recorded);
    if (!parsed.success) {
      logger.warn({ source: recorded }, "a recorded thread reference is not usable; answering without the thread");
      return [];
    }
    try {
      return await load(parsed.data);
    } catch (error) {
      logger.warn({ err: error, source: recorded }, "could not read the thread for context");
      return [];
    }
  };
}
