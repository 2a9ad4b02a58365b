// A mention inside a thread makes the thread the conversation: what other people wrote there
// before it becomes context for the run. Bot messages and earlier questions to the bot are left
// out (those exchanges are already in the conversation's memory; traces and buttons are
// noise). Newest messages win when the token budget runs out. Slack lists a thread oldest
// first, so the thread is read page by page up to the question (bounded), never just its start.
import { z } from "zod";
import type { webApi } from "@slack/bolt";
import type { ChatMessage } from "../../agent/types.js";
import type { TokenCounter } from "../../tokens/token-counter.js";
import type { Logger } from "../../logger.js";

const THREAD_CONTEXT_TOKENS = 2_000;
export const THREAD_PAGE_SIZE = 200;
/** A thread longer than this many pages before the question is read from its start only (and logged). */
export const THREAD_MAX_PAGES = 10;

const ThreadMessage = z.object({
  ts: z.string(),
  user: z.string().optional(),
  bot_id: z.string().optional(),
  text: z.string().default(""),
});

const RepliesPage = z.object({
  messages: z.array(z.unknown()).default([]),
  response_metadata: z.object({ next_cursor: z.string().optional() }).optional(),
});

const MESSAGE_OVERHEAD_TOKENS = 4;

/**
 * The message's tokens when they fit `room`, else undefined. Cuts before it counts, so a long
 * message costs work in proportion to `room`, never to its own length (Slack allows 40,000 characters).
 */
function tokensWithin(text: string, room: number, counter: TokenCounter): number | undefined {
  if (room < 1) return undefined;
  if (counter.truncate(text, room).truncated) return undefined;
  return counter.countText(text);
}

export interface ThreadContextRequest {
  readonly channel: string;
  readonly threadTs: string;
  /** The message that asked; it and anything after it are not context. */
  readonly beforeTs: string;
  readonly botUserId?: string;
  readonly maxTokens?: number;
}

/** Pure: Slack thread messages (oldest first, untrusted) to bounded chat context, counted by the model's `counter`. */
export function toThreadContext(rawMessages: readonly unknown[], request: ThreadContextRequest, counter: TokenCounter): ChatMessage[] {
  const budget = request.maxTokens ?? THREAD_CONTEXT_TOKENS;
  const people = rawMessages
    .map((raw) => ThreadMessage.safeParse(raw))
    .flatMap((parsed) => (parsed.success ? [parsed.data] : []))
    .filter(
      (m) => Number(m.ts) < Number(request.beforeTs) && m.bot_id === undefined && m.user !== request.botUserId && m.text.trim() !== "",
    )
    .filter((m) => request.botUserId === undefined || !m.text.includes(`<@${request.botUserId}`));

  const kept: ChatMessage[] = [];
  let used = 0;
  for (const message of [...people].reverse()) {
    const content = `<@${message.user ?? "unknown"}>: ${message.text}`;
    const tokens = tokensWithin(content, budget - used - MESSAGE_OVERHEAD_TOKENS, counter);
    if (tokens === undefined) break;
    used += tokens + MESSAGE_OVERHEAD_TOKENS;
    kept.unshift({ role: "user", content });
  }
  return kept;
}

/** The thread's messages before the question, oldest first, following the cursor to the end (bounded). */
async function threadBefore(client: webApi.WebClient, request: ThreadContextRequest, logger: Logger): Promise<unknown[]> {
  const messages: unknown[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < THREAD_MAX_PAGES; page += 1) {
    const response = await client.conversations.replies({
      channel: request.channel,
      ts: request.threadTs,
      latest: request.beforeTs,
      inclusive: false,
      limit: THREAD_PAGE_SIZE,
      ...(cursor ? { cursor } : {}),
    });
    const parsed = RepliesPage.parse(response);
    messages.push(...parsed.messages);
    cursor = parsed.response_metadata?.next_cursor;
    if (!cursor) return messages;
  }
  logger.warn(
    { channel: request.channel, threadTs: request.threadTs, read: messages.length },
    "the thread is too long to read up to the question; its context comes from its start",
  );
  return messages;
}

/** Never throws: a thread that cannot be read gives no context, and the run goes on. */
export async function loadThreadContext(
  client: webApi.WebClient,
  request: ThreadContextRequest,
  counter: TokenCounter,
  logger: Logger,
): Promise<ChatMessage[]> {
  try {
    return toThreadContext(await threadBefore(client, request, logger), request, counter);
  } catch (error) {
    logger.warn({ err: error, channel: request.channel, threadTs: request.threadTs }, "could not read the thread for context");
    return [];
  }
}
