// An answer carries its run in Slack's message metadata, so that a process taking a run over
// (its first process died after posting, before marking the answer) finds it in the conversation
// instead of posting it a second time: a posted answer on its first message, a streamed one on
// the message that ends it (chat.stopStream, or the update that took over its stream), so a
// stream cut short by a crash is not found and the run answers again. Not found, or Slack can't
// say: the answer is posted (a possible second copy beats a lost answer).
import type { webApi } from "@slack/bolt";
import type { Logger } from "../../logger.js";
import type { SlackMetadata, Where } from "./slack-posts.js";

/** The metadata's event type of a run's answer. */
export const ANSWER_EVENT = "agent_answer";
/** A thread longer than this is not searched further: the answer of a run taken over is among its latest messages. */
const PAGES = 5;

export const answerMetadata = (runId: string): SlackMetadata => ({ event_type: ANSWER_EVENT, event_payload: { run_id: runId } });

interface Listed {
  readonly ts?: string;
  readonly bot_id?: string;
  readonly metadata?: { readonly event_type?: string; readonly event_payload?: Record<string, unknown> };
}

/** A bot's message that carries a run's answer (listed with its metadata). */
export const isPostedAnswer = (message: Listed): boolean => message.metadata?.event_type === ANSWER_EVENT && message.bot_id !== undefined;

const isAnswerOf = (runId: string) => (message: Listed) => isPostedAnswer(message) && message.metadata?.event_payload?.run_id === runId;

/** The ts of `runId`'s answer where it would be (the thread, or a DM's top level); undefined when none or Slack failed. */
export async function findPostedAnswer(client: webApi.WebClient, logger: Logger, where: Where, runId: string): Promise<string | undefined> {
  try {
    let cursor: string | undefined;
    for (let page = 0; page < PAGES; page++) {
      const common = { channel: where.channel, include_all_metadata: true, limit: 200, ...(cursor ? { cursor } : {}) };
      const listed = where.threadTs
        ? await client.conversations.replies({ ...common, ts: where.threadTs })
        : await client.conversations.history(common);
      const found = (listed.messages as Listed[] | undefined)?.find(isAnswerOf(runId));
      if (found?.ts) return found.ts;
      cursor = listed.response_metadata?.next_cursor || undefined;
      if (!cursor) return undefined;
    }
  } catch (error) {
    logger.warn({ err: error, runId }, "could not look for a run's answer in its conversation; it is posted");
  }
  return undefined;
}
