// A mention inside a thread makes the thread the conversation: what people wrote there before it
// becomes context for the run, each message with its source (the requester's own, or another
// person's, which the model reads as data), newest first within a token budget (a long message
// costs work in proportion to the budget, never to its own length). The surface reads the thread
// and leaves out the bot's own messages and earlier questions to it; this file bounds it.
import type { z } from "zod";
import { asData } from "../../agent/context/data-blocks.js";
import type { SourcedText } from "../../contracts/provenance.js";
import type { TaskOrigin } from "../../contracts/types.js";
import type { Logger } from "../../logger.js";
import type { ContextLoader } from "../../runs/api/surface-hooks.js";
import type { TokenCounter } from "../../tokens/token-counter.js";

const THREAD_CONTEXT_TOKENS = 2_000;
const MESSAGE_OVERHEAD_TOKENS = 4;
/** Any boundary has this length: a line is counted as the model will read it, inside its data block. */
const COUNTING_BOUNDARY = "000000000000";

/** The message's tokens when they fit `room`, else undefined: cut before counted. */
function tokensWithin(text: string, room: number, counter: TokenCounter): number | undefined {
  if (room < 1) return undefined;
  if (counter.truncate(text, room).truncated) return undefined;
  return counter.countText(text);
}

/** Pure: the newest lines (oldest first, each with its source) that fit the budget, in the order they were written, counted by the model's `counter`. */
export function boundedThread(lines: readonly SourcedText[], counter: TokenCounter, maxTokens = THREAD_CONTEXT_TOKENS): SourcedText[] {
  const kept: SourcedText[] = [];
  let used = 0;
  for (const line of [...lines].reverse()) {
    const tokens = tokensWithin(asData(line.text, line.source, COUNTING_BOUNDARY), maxTokens - used - MESSAGE_OVERHEAD_TOKENS, counter);
    if (tokens === undefined) break;
    used += tokens + MESSAGE_OVERHEAD_TOKENS;
    kept.unshift(line);
  }
  return kept;
}

/**
 * A surface's context loader. The source was recorded at intake and is read back from the store
 * (untrusted: checked with `schema`); `load` reads the thread it names for the run's origin. Never
 * throws: a source that is not one of ours, or a thread that can't be read, gives no context
 * (logged), and the run goes on.
 */
export function threadContextLoader<S>(
  schema: z.ZodType<S>,
  logger: Logger,
  load: (source: S, origin: TaskOrigin) => Promise<SourcedText[]>,
): ContextLoader {
  return async (recorded, origin) => {
    const parsed = schema.safeParse(recorded);
    if (!parsed.success) {
      logger.warn({ source: recorded }, "a recorded thread reference is not usable; answering without the thread");
      return [];
    }
    try {
      return await load(parsed.data, origin);
    } catch (error) {
      logger.warn({ err: error, source: recorded }, "could not read the thread for context");
      return [];
    }
  };
}
