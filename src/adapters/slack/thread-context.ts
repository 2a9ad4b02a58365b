// A mention inside a channel thread runs with what people wrote there before it (bounded by the
// core, core/thread-context.ts). Reading the thread is a Slack call that can be slow, so intake
// records only where the thread is (the task's contextSource, kept in the intake record) and the
// worker reads it when the run starts: nothing slow stands between Slack's ack and the record,
// and a restart can still read it. Slack lists a thread oldest first, so it is read page by page
// up to the question (bounded), never just its start.
import type { webApi } from "@slack/bolt";
import { z } from "zod";
import type { SourcedText, TextSource } from "../../contracts/provenance.js";
import type { TaskOrigin } from "../../contracts/types.js";
import type { Logger } from "../../logger.js";
import type { ContextLoader } from "../../runs/api/surface-hooks.js";
import type { TokenCounter } from "../../tokens/token-counter.js";
import { boundedThread, threadContextLoader } from "../core/thread-context.js";
import { messagesIn, readThread } from "./slack-api.js";

export { THREAD_PAGE_SIZE } from "./slack-api.js";
/** A thread longer than this many pages before the question is read from its start only (and logged). */
export const THREAD_MAX_PAGES = 10;

const SourceSchema = z.object({ channel: z.string().min(1), thread_ts: z.string().min(1), before_ts: z.string().min(1) });

export interface ThreadContextRequest {
  readonly channel: string;
  readonly threadTs: string;
  /** The message that asked; it and anything after it are not context. */
  readonly beforeTs: string;
  readonly botUserId?: string;
  /** Who asked: their own earlier messages in the thread are theirs, not another person's. */
  readonly requester?: string;
  readonly maxTokens?: number;
}

/** Where the worker finds the thread context of a question asked at `beforeTs` in a channel thread. */
export function threadSource(channel: string, threadTs: string, beforeTs: string): Readonly<Record<string, string>> {
  return { channel, thread_ts: threadTs, before_ts: beforeTs };
}

/** Who wrote a thread message, as its source: the requester, or another person in the channel (as Slack's mrkdwn names both). */
function sourceOf(user: string | undefined, request: ThreadContextRequest): TextSource {
  const author = { id: user ?? "unknown" };
  return user !== undefined && user === request.requester
    ? { kind: "requester", person: author }
    : { kind: "person", author, channel: `<#${request.channel}>` };
}

/** Pure: Slack thread messages (oldest first, untrusted) to bounded context with their sources (the model's `counter`), without bots or earlier questions to the bot. */
export function toThreadContext(rawMessages: readonly unknown[], request: ThreadContextRequest, counter: TokenCounter): SourcedText[] {
  const bot = request.botUserId;
  const people = messagesIn(rawMessages)
    .filter((m) => Number(m.ts) < Number(request.beforeTs) && m.bot_id === undefined && m.user !== bot && m.text.trim() !== "")
    .filter((m) => bot === undefined || !m.text.includes(`<@${bot}`));
  return boundedThread(
    people.map((m) => ({ source: sourceOf(m.user, request), text: m.text })),
    counter,
    request.maxTokens,
  );
}

/** The thread's messages before the question, oldest first (bounded). */
async function threadBefore(client: webApi.WebClient, request: ThreadContextRequest, logger: Logger): Promise<unknown[]> {
  const { channel, threadTs, beforeTs: latest } = request;
  const { messages, whole } = await readThread(client, { channel, ts: threadTs, latest }, THREAD_MAX_PAGES);
  if (!whole)
    logger.warn(
      { channel, threadTs, read: messages.length },
      "the thread is too long to read up to the question; its context comes from its start",
    );
  return messages;
}

/**
 * The core's loader (core/thread-context.ts) over the thread a Slack question was asked in, read
 * with the client of the origin's workspace (`clientOf`), leaving out that workspace's bot (`botUserIdOf`).
 */
export function slackContextLoader(
  clientOf: (origin: TaskOrigin) => webApi.WebClient,
  botUserIdOf: (origin: TaskOrigin) => Promise<string | undefined>,
  counter: TokenCounter,
  logger: Logger,
): ContextLoader {
  return threadContextLoader(SourceSchema, logger, async ({ channel, thread_ts: threadTs, before_ts: beforeTs }, origin) => {
    const bot = await botUserIdOf(origin);
    const request = { channel, threadTs, beforeTs, requester: origin.requester.id, ...(bot ? { botUserId: bot } : {}) };
    return toThreadContext(await threadBefore(clientOf(origin), request, logger), request, counter);
  });
}
