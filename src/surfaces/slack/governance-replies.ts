// What the settings file shows on Slack: a refusal told privately (ephemeral, falling back to a
// reply in the thread that names no details), `@bot audit` for admins, `@bot settings` for anyone.
import type { RefusalNote } from "../../runs/service.js";
import { originOf, placeOf } from "./run-presenter.js";
import type { IncomingMessage, ThreadPlace } from "./incoming-message.js";
import { neutraliseMentions } from "./neutralise-mentions.js";
import { postWithRetry } from "./post-answer.js";
import type { SlackRuntime } from "./slack-runtime.js";

/** Public, so it says nothing about who is blocked or which limit was hit. */
export const REFUSAL_FALLBACK_TEXT = "Sorry, I can't take this request here.";

async function postInThread(runtime: SlackRuntime, place: ThreadPlace, text: string): Promise<void> {
  const { channel, replyThreadTs } = place;
  try {
    await postWithRetry(() => runtime.client.chat.postMessage({ channel, ...(replyThreadTs ? { thread_ts: replyThreadTs } : {}), text }));
  } catch (error) {
    runtime.logger.error({ err: error, channel }, "could not post a reply");
  }
}

/** Only the person sees `text`; when Slack refuses that (not a member, a DM with the app…), a reply without details. Never throws. */
async function tellPrivately(runtime: SlackRuntime, place: ThreadPlace, text: string, fallback: string): Promise<void> {
  const { channel, replyThreadTs, requester } = place;
  try {
    await runtime.client.chat.postEphemeral({ channel, user: requester, text, ...(replyThreadTs ? { thread_ts: replyThreadTs } : {}) });
  } catch (error) {
    runtime.logger.info({ err: error, user: requester }, "could not answer privately; replying in the thread without details");
    await postInThread(runtime, place, fallback);
  }
}

/**
 * Tells the asker that the settings file refused their message (access or a limit). The worker
 * that would have run it decides and calls this, so nothing about it stands between the event
 * and Slack's ack. Never throws.
 */
export function slackRefusalNote(runtime: SlackRuntime): RefusalNote {
  return async (origin, text) => {
    const place = placeOf(origin);
    if (!place)
      return void runtime.logger.warn({ conversationKey: origin.conversationKey }, "a refused message has no Slack place; not told");
    runtime.logger.info({ user: place.requester, channel: place.channel }, "request refused by the settings");
    await tellPrivately(runtime, place, text, REFUSAL_FALLBACK_TEXT);
  };
}

/** Admins only, and only to them: the log names people and what they approved. */
export async function showAudit(runtime: SlackRuntime, message: IncomingMessage): Promise<void> {
  const text = runtime.governance
    ? await runtime.governance.audit("slack", message.place.requester, "slack")
    : "The audit log is not set up on this bot.";
  await tellPrivately(
    runtime,
    message.place,
    neutraliseMentions(text),
    "I could not show that to you privately here; ask me in a direct message.",
  );
}

export async function showSettings(runtime: SlackRuntime, message: IncomingMessage): Promise<void> {
  const text = runtime.governance
    ? await runtime.governance.settings(originOf(message))
    : "No settings file is in use: every tool, no limits.";
  await postInThread(runtime, message.place, neutraliseMentions(text));
}
