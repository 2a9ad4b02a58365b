// A mention inside a channel thread runs with what people wrote there before it. Reading the
// thread is a Slack call that can be slow, so the adapter records only where the thread is (in
// the task's contextSource, kept in the intake record) and the worker reads it when the run
// starts: nothing slow stands between Slack's ack and the record, and a restart can still read it.
import type { webApi } from "@slack/bolt";
import { z } from "zod";
import type { ContextLoader } from "../../runs/service.js";
import type { Logger } from "../../logger.js";
import type { TokenCounter } from "../../tokens/token-counter.js";
import type { IncomingMessage } from "./incoming-message.js";
import { loadThreadContext } from "./thread-context.js";

const SourceSchema = z.object({ channel: z.string().min(1), thread_ts: z.string().min(1), before_ts: z.string().min(1) });

/** Where the thread context of a question is; only a channel thread holds other people's words (a DM thread is already in memory). */
export function contextSourceOf(message: IncomingMessage): Readonly<Record<string, string>> | undefined {
  if (message.entry !== "mention" || message.threadTs === undefined) return undefined;
  return { channel: message.place.channel, thread_ts: message.threadTs, before_ts: message.ts };
}

/** Never throws: a source that is not one of ours, or a thread that can't be read, gives no context. */
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
    return loadThreadContext(
      client,
      {
        channel: parsed.data.channel,
        threadTs: parsed.data.thread_ts,
        beforeTs: parsed.data.before_ts,
        ...(bot ? { botUserId: bot } : {}),
      },
      counter,
      logger,
    );
  };
}
