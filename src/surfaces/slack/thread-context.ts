// A mention inside a channel thread runs with what people wrote there before it (bounded by the
// core, core/thread-context.ts). Reading the thread is a Slack call that can be slow, so intake
// records only where the thread is (the task's contextSource, kept in the intake record) and the
// worker reads it when the run starts: nothing slow stands between Slack's ack and the record,
// and a restart can still read it. Slack lists a thread oldest first, so it is read page by page
// up to the question (bounded), never just its start.
import type { webApi } from "@slack/bolt";
import { z } from "zod";
import type { ChatMessage } from "../../agent/types.js";
import type { Logger } from "../../logger.js";
import type { ContextLoader } from "../../runs/service.js";
import type { TokenCounter } from "../../tokens/token-counter.js";
import { boundedThread } from "../core/thread-context.js";
import { readPages } from "./slack-api.js";

export const THREAD_PAGE_SIZE = 200;
/** A thread longer than this many pages before the question is read from its start only (and logged). */
export const THREAD_MAX_PAGES = 10;

const ThreadMessage = z.object({
  ts: z.string(),
  user: z.string().optional(),
  bot_id: z.string().optional(),
  text: z.string().default(""),
});
const SourceSchema = z.object({ channel: z.string().min(1), thread_ts: z.string().min(1), before_ts: z.string().min(1) });

export interface ThreadContextRequest {
  readonly channel: string;
  readonly threadTs: string;
  /** The message that asked; it and anything after it are not context. */
  readonly beforeTs: string;
  readonly botUserId?: string;
  readonly maxTokens?: number;
}

/** Where the worker finds the thread context of a question asked at `beforeTs` in a channel thread. */
export function threadSource(channel: string, threadTs: string, beforeTs: string): Readonly<Record<string, string>> {
  return { channel, thread_ts: threadTs, before_ts: beforeTs };
}

/** Pure: Slack thread messages (oldest first, untrusted) to bounded chat context (the model's `counter`), without bots or earlier questions to the bot. */
export function toThreadContext(rawMessages: readonly unknown[], request: ThreadContextRequest, counter: TokenCounter): ChatMessage[] {
  const bot = request.botUserId;
  const people = rawMessages
    .flatMap((raw) => {
      const parsed = ThreadMessage.safeParse(raw);
      return parsed.success ? [parsed.data] : [];
    })
    .filter((m) => Number(m.ts) < Number(request.beforeTs) && m.bot_id === undefined && m.user !== bot && m.text.trim() !== "")
    .filter((m) => bot === undefined || !m.text.includes(`<@${bot}`));
  return boundedThread(
    people.map((m) => ({ author: `<@${m.user ?? "unknown"}>`, text: m.text })),
    counter,
    request.maxTokens,
  );
}

/** The thread's messages before the question, oldest first, following the cursor to the end (bounded). */
async function threadBefore(client: webApi.WebClient, request: ThreadContextRequest, logger: Logger): Promise<unknown[]> {
  const messages: unknown[] = [];
  const { channel, threadTs: ts, beforeTs: latest } = request;
  const whole = await readPages(
    (page) => client.conversations.replies({ channel, ts, latest, inclusive: false, limit: THREAD_PAGE_SIZE, ...page }),
    (page) => void messages.push(...page.messages),
    THREAD_MAX_PAGES,
  );
  if (!whole)
    logger.warn(
      { channel, threadTs: ts, read: messages.length },
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

/** Never throws: a source that is not one of ours gives no context. */
export function slackContextLoader(
  client: webApi.WebClient,
  botUserId: () => string | undefined,
  counter: TokenCounter,
  logger: Logger,
): ContextLoader {
  return async (source) => {
    const parsed = SourceSchema.safeParse(source);
    if (!parsed.success) {
      logger.warn({ source }, "a recorded Slack thread reference is not usable; answering without the thread");
      return [];
    }
    const bot = botUserId();
    const { channel, thread_ts: threadTs, before_ts: beforeTs } = parsed.data;
    return loadThreadContext(client, { channel, threadTs, beforeTs, ...(bot ? { botUserId: bot } : {}) }, counter, logger);
  };
}
