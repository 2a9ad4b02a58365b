// DELETE_ANSWERS_WITH_QUESTION on Slack: the bot's messages of a run whose question was deleted go
// too. They are the bot's messages in the run's thread that end with its answer: back from the
// answer to the message before them that is not the bot's (the question's tombstone, a person's
// reply) or is another run's answer (its metadata says so), so the thread's other runs stay.
import type { webApi } from "@slack/bolt";
import type { TaskOrigin } from "../../contracts/types.js";
import type { Logger } from "../../logger.js";
import type { PostedAnswer } from "../../runs/api/presenting.js";
import { attempt } from "../core/attempt.js";
import { ANSWER_EVENT } from "./posted-answer.js";
import { placeOf } from "./slack-place.js";

/** A thread with more messages than this is not read further: the answer is among its latest. */
const READ = 200;

interface Listed {
  readonly ts?: string;
  readonly bot_id?: string;
  readonly metadata?: { readonly event_type?: string };
}

const isAnswer = (message: Listed) => message.metadata?.event_type === ANSWER_EVENT;

/** Pure: the ts of the run's messages, the answer's last: the bot's messages right before it, and it. */
export function runMessagesEndingAt(messages: readonly Listed[], answerTs: string): string[] {
  const at = messages.findIndex((message) => message.ts === answerTs);
  if (at < 0) return [];
  let first = at;
  while (first > 0 && messages[first - 1]!.bot_id !== undefined && !isAnswer(messages[first - 1]!)) first--;
  return messages.slice(first, at + 1).flatMap((message) => (message.ts ? [message.ts] : []));
}

/** `clientOf`: the client of the origin's workspace (its token of the moment). */
export function deleteRunMessages(clientOf: (origin: TaskOrigin) => webApi.WebClient, logger: Logger) {
  return async (origin: TaskOrigin, answer: PostedAnswer | undefined): Promise<void> => {
    const place = placeOf(origin);
    if (!place || !answer) return;
    const client = clientOf(origin);
    const channel = place.channel;
    const thread = place.replyThreadTs ?? place.traceThreadTs;
    const listed = await client.conversations
      .replies({ channel, ts: thread, limit: READ, include_all_metadata: true })
      .catch((error: unknown) => {
        logger.warn({ err: error, channel }, "could not read a deleted question's thread; its answer stays");
        return undefined;
      });
    const doomed = runMessagesEndingAt((listed?.messages as Listed[] | undefined) ?? [], answer.messageId);
    for (const ts of doomed)
      await attempt(logger, { level: "warn", message: "could not delete an answer with its question", fields: { channel } }, () =>
        client.chat.delete({ channel, ts }),
      );
  };
}
