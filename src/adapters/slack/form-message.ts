// A server's question on Slack: the private card (an ephemeral message to the requester in the
// run's thread, else a direct message) with Answer <server>, Decline and Dismiss, or a link
// button for a page (link-button.ts). Its buttons name the form and the thread (card-clicks.ts).
import type { webApi } from "@slack/bolt";
import { z } from "zod";
import type { PendingForm } from "../../contracts/types.js";
import type { Logger } from "../../logger.js";
import { answerLabel, formCardText } from "../core/forms.js";
import type { FormAction } from "../core/form-clicks.js";
import { type CardActions, cardValue, cardValueSchema } from "./card-clicks.js";
import { buttonText, linkButton } from "./link-button.js";
import type { ThreadPlace } from "./slack-place.js";
import { slackFormat } from "./slack-text.js";

export const FORM_OPEN_ACTION = "agent_form_open";
export const FORM_DECLINE_ACTION = "agent_form_decline";
export const FORM_CANCEL_ACTION = "agent_form_cancel";
const FORM_ACTIONS: CardActions<FormAction> = {
  [FORM_OPEN_ACTION]: "open",
  [FORM_DECLINE_ACTION]: "decline",
  [FORM_CANCEL_ACTION]: "cancel",
};
/** The card's buttons, each naming the form (`f`). */
export const FORM_CARD = {
  actions: FORM_ACTIONS,
  value: cardValueSchema({ f: z.string().min(1).max(64) }),
  what: "form button",
};

/** Answer, Decline and Dismiss; for a page, its link button (none where Slack would refuse its url). */
function cardButtons(form: PendingForm, value: string) {
  const { question } = form;
  if (question.kind === "url") {
    const link = linkButton(`Open for ${question.server}`, question.url);
    return link ? [link] : [];
  }
  return [
    { type: "button" as const, action_id: FORM_OPEN_ACTION, style: "primary" as const, text: buttonText(answerLabel(form)), value },
    { type: "button" as const, action_id: FORM_DECLINE_ACTION, text: buttonText("Decline"), value },
    { type: "button" as const, action_id: FORM_CANCEL_ACTION, text: buttonText("Dismiss"), value },
  ];
}

export function formBlocks(form: PendingForm, place: Pick<ThreadPlace, "channel" | "replyThreadTs">) {
  const value = cardValue({ f: form.formId }, place);
  const buttons = cardButtons(form, value);
  return [
    { type: "section" as const, text: { type: "mrkdwn" as const, text: formCardText(form, slackFormat).slice(0, 3_000) } },
    // Slack refuses an actions block without elements: a page whose url can't be a button is named only.
    ...(buttons.length > 0 ? [{ type: "actions" as const, block_id: "form", elements: buttons }] : []),
  ];
}

/** The card, to the requester alone: ephemeral in the run's thread, else a direct message. Never throws. */
export async function postFormCard(client: webApi.WebClient, logger: Logger, place: ThreadPlace, form: PendingForm): Promise<void> {
  const text = formCardText(form, slackFormat);
  const thread = place.replyThreadTs ? { thread_ts: place.replyThreadTs } : {};
  try {
    await client.chat.postEphemeral({ channel: place.channel, user: form.requester.id, text, blocks: formBlocks(form, place), ...thread });
    return;
  } catch (error) {
    logger.info({ err: error, formId: form.formId }, "Slack refused the form's ephemeral card; sending it as a direct message");
  }
  try {
    const opened = await client.conversations.open({ users: form.requester.id });
    const channel = opened.channel?.id;
    if (!channel) throw new Error("no direct message channel");
    await client.chat.postMessage({ channel, text, blocks: formBlocks(form, { channel }) });
  } catch (error) {
    logger.warn({ err: error, formId: form.formId }, "could not show a server's form to its requester; it waits until it expires");
  }
}
