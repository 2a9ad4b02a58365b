// A server's question on Slack: the private card (an ephemeral message to the requester in the
// run's thread, else a direct message) with Answer <server>, Decline and Dismiss, or a link
// button for a page (link-button.ts); and the clicks on it. An ephemeral message's click carries
// no `message`, so each button's value names the form and the thread (untrusted, checked with zod).
import type { webApi } from "@slack/bolt";
import { z } from "zod";
import type { PendingForm } from "../../contracts/types.js";
import type { Logger } from "../../logger.js";
import { answerLabel, formCardText } from "../core/forms.js";
import type { FormAction } from "../core/form-clicks.js";
import { spotOf, type SurfaceCore } from "../core/inbound.js";
import { buttonText, linkButton } from "./link-button.js";
import { jsonValue } from "./slack-api.js";
import { conversationAt, type ThreadPlace } from "./slack-place.js";
import type { SlackClicked } from "./slack-refs.js";
import type { WorkspaceRef } from "./install/workspace-ref.js";
import { enterpriseOf } from "./slack-clicks.js";
import { slackFormat } from "./slack-text.js";

export const FORM_OPEN_ACTION = "agent_form_open";
export const FORM_DECLINE_ACTION = "agent_form_decline";
export const FORM_CANCEL_ACTION = "agent_form_cancel";
const ACTIONS: Readonly<Record<string, FormAction>> = {
  [FORM_OPEN_ACTION]: "open",
  [FORM_DECLINE_ACTION]: "decline",
  [FORM_CANCEL_ACTION]: "cancel",
};
export const FORM_ACTIONS = Object.keys(ACTIONS);

const ButtonValue = z.object({ f: z.string().min(1).max(64), c: z.string().min(1).max(40), t: z.string().max(40).optional() });
const Click = z.object({
  trigger_id: z.string().min(1).optional(),
  team: z.object({ id: z.string().min(1) }).nullish(),
  user: z.object({ id: z.string().min(1), username: z.string().optional(), name: z.string().optional(), team_id: z.string().optional() }),
  actions: z.array(z.object({ value: z.string().optional() })).min(1),
});

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
  const value = JSON.stringify({ f: form.formId, c: place.channel, ...(place.replyThreadTs ? { t: place.replyThreadTs } : {}) });
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

/** Hands a click on a form's button to the core. Never rejects. */
export async function takeFormClick(
  core: SurfaceCore<SlackClicked>,
  action: string,
  body: unknown,
  ignored: () => void,
  workspace?: WorkspaceRef,
): Promise<void> {
  const parsed = Click.safeParse(body);
  const chosen = ACTIONS[action];
  const value = parsed.success ? jsonValue(ButtonValue, parsed.data.actions[0]!.value) : undefined;
  if (!parsed.success || !chosen || !value) return ignored();
  const { team: teamOf, user, trigger_id } = parsed.data;
  const team = teamOf?.id ?? user.team_id ?? "";
  const conversation = conversationAt({
    team,
    channel: value.c,
    traceThreadTs: value.t ?? "",
    ...(value.t ? { replyThreadTs: value.t } : {}),
    ...enterpriseOf(workspace),
  });
  const name = user.username ?? user.name;
  const at = spotOf("slack", conversation, { id: user.id, ...(name ? { name } : {}), roles: [] });
  const clicked: SlackClicked = {
    channel: value.c,
    ts: value.t ?? "",
    ...(trigger_id ? { triggerId: trigger_id } : {}),
    ...(workspace ? { workspace } : {}),
  };
  return core.form({ at, clicked, formId: value.f, action: chosen });
}
