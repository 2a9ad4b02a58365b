// What the settings file shows on Slack: a refusal told privately (ephemeral, falling back to a
// reply in the thread that names no details), `@bot audit` for admins, `@bot settings` for anyone.
import { originOf } from "./run-presenter.js";
import type { IncomingMessage } from "./incoming-message.js";
import { neutraliseMentions } from "./neutralise-mentions.js";
import { postWithRetry } from "./post-answer.js";
import type { SlackRuntime } from "./slack-runtime.js";

/** Public, so it says nothing about who is blocked or which limit was hit. */
export const REFUSAL_FALLBACK_TEXT = "Sorry, I can't take this request here.";

async function postInThread(runtime: SlackRuntime, message: IncomingMessage, text: string): Promise<void> {
  const { channel, replyThreadTs } = message.place;
  try {
    await postWithRetry(() => runtime.client.chat.postMessage({ channel, ...(replyThreadTs ? { thread_ts: replyThreadTs } : {}), text }));
  } catch (error) {
    runtime.logger.error({ err: error, channel }, "could not post a reply");
  }
}

/** Only the person sees `text`; when Slack refuses that (not a member, a DM with the app…), a reply without details. Never throws. */
export async function tellPrivately(runtime: SlackRuntime, message: IncomingMessage, text: string, fallback: string): Promise<void> {
  const { channel, replyThreadTs, requester } = message.place;
  try {
    await runtime.client.chat.postEphemeral({ channel, user: requester, text, ...(replyThreadTs ? { thread_ts: replyThreadTs } : {}) });
  } catch (error) {
    runtime.logger.info({ err: error, user: requester }, "could not answer privately; replying in the thread without details");
    await postInThread(runtime, message, fallback);
  }
}

/**
 * Access and limits for a question before anything shows. The message's dedupe key makes a
 * redelivery get the same answer, so it is neither counted nor refused twice. A refusal's
 * private note is returned, to post after Slack's ack (it is a slow call).
 */
export async function admitQuestion(
  runtime: SlackRuntime,
  message: IncomingMessage,
): Promise<{ readonly kind: "admitted" } | { readonly kind: "refused"; readonly tell?: () => Promise<void> }> {
  const admission = await runtime.service.admit(originOf(message), [], message.dedupeKey);
  if (admission.kind === "admitted") return { kind: "admitted" };
  runtime.logger.info(
    { user: message.place.requester, channel: message.place.channel, refusal: admission.refusal, repeat: admission.repeat === true },
    "request refused by the settings",
  );
  if (admission.repeat) return { kind: "refused" };
  return { kind: "refused", tell: () => tellPrivately(runtime, message, admission.text, REFUSAL_FALLBACK_TEXT) };
}

/** Admins only, and only to them: the log names people and what they approved. */
export async function showAudit(runtime: SlackRuntime, message: IncomingMessage): Promise<void> {
  const text = runtime.governance
    ? await runtime.governance.audit("slack", message.place.requester, "slack")
    : "The audit log is not set up on this bot.";
  await tellPrivately(
    runtime,
    message,
    neutraliseMentions(text),
    "I could not show that to you privately here; ask me in a direct message.",
  );
}

export async function showSettings(runtime: SlackRuntime, message: IncomingMessage): Promise<void> {
  const text = runtime.governance
    ? await runtime.governance.settings(originOf(message))
    : "No settings file is in use: every tool, no limits.";
  await postInThread(runtime, message, neutraliseMentions(text));
}
