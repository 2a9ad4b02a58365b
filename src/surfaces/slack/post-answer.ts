// Posting the answer: as Slack mrkdwn, neutralised, split below Slack's message limit, each part
// retried when Slack fails in a way worth retrying (the client already retries rate limits,
// network and HTTP errors). An answer that still cannot be posted is logged in full, so
// nothing is lost silently. When a guard fired, a context line naming it follows the answer.
import type { webApi } from "@slack/bolt";
import type { GuardStop } from "../../agent/types.js";
import type { Logger } from "../../logger.js";
import { splitText } from "../core/split-text.js";
import { neutraliseMentions } from "./neutralise-mentions.js";
import { toSlackMrkdwn } from "./slack-markdown.js";
import { describeSlackError, slackErrorCode } from "./slack-api-error.js";
import { escapeSlackText } from "./slack-text.js";

/** Slack advises messages under 4,000 characters (longer ones are cut); stay below. */
export const ANSWER_PART_MAX_CHARS = 3_900;
const ANSWER_RETRY_DELAYS_MS: readonly number[] = [300, 1_000];

const EMPTY_ANSWER = "_(The model gave an empty answer.)_";
const TRANSIENT_ERRORS = new Set(["internal_error", "fatal_error", "service_unavailable", "request_timeout", "ratelimited"]);

export interface ReplyTarget {
  readonly channel: string;
  /** Undefined: the top level of a DM. */
  readonly threadTs?: string;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Retries a failed post when the error is transient; throws the last error otherwise. */
export async function postWithRetry(post: () => Promise<unknown>, delaysMs: readonly number[] = ANSWER_RETRY_DELAYS_MS): Promise<void> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      await post();
      return;
    } catch (error) {
      const code = slackErrorCode(error);
      const delay = delaysMs[attempt];
      if (delay === undefined || (code !== undefined && !TRANSIENT_ERRORS.has(code))) throw error;
      await sleep(delay);
    }
  }
}

function guardLineBlocks(stop: GuardStop) {
  return [
    {
      type: "context" as const,
      elements: [{ type: "mrkdwn" as const, text: `:warning: ${escapeSlackText(neutraliseMentions(stop.sentence))}` }],
    },
  ];
}

/** The ts of the answer's first message; undefined when a part could not be posted (logged with the whole answer). Never throws. */
export async function postAnswer(
  client: webApi.WebClient,
  target: ReplyTarget,
  answer: string,
  stop: GuardStop | undefined,
  logger: Logger,
): Promise<string | undefined> {
  const split = splitText(toSlackMrkdwn(answer), ANSWER_PART_MAX_CHARS);
  const parts = split.length > 0 ? split : [EMPTY_ANSWER];
  const thread = target.threadTs === undefined ? {} : { thread_ts: target.threadTs };
  let first: string | undefined;
  try {
    for (const part of parts) {
      await postWithRetry(async () => {
        const posted = await client.chat.postMessage({
          channel: target.channel,
          ...thread,
          text: part,
          unfurl_links: false,
          unfurl_media: false,
        });
        first ??= posted.ts;
      });
    }
  } catch (error) {
    logger.error(
      { err: error, channel: target.channel, threadTs: target.threadTs, answer },
      `could not post the answer (${describeSlackError(error)}); it is in this log line`,
    );
    return undefined;
  }
  if (!stop) return first;
  try {
    await postWithRetry(() =>
      client.chat.postMessage({
        channel: target.channel,
        ...thread,
        text: escapeSlackText(neutraliseMentions(stop.sentence)),
        blocks: guardLineBlocks(stop),
      }),
    );
  } catch (error) {
    logger.error({ err: error, channel: target.channel, guard: stop.guard, sentence: stop.sentence }, "could not post the guard line");
  }
  return first;
}
