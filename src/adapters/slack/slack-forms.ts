// A server's form on Slack, as the adapter listens for it and opens it: the card's buttons, the
// modal opened with the click's trigger id (Slack takes it for 3 seconds, once), and the modal's
// Send, acknowledged with the problems under their fields when the answer does not read, so the
// person fixes it in place.
import type { App, webApi } from "@slack/bolt";
import type { PendingForm } from "../../contracts/types.js";
import type { Logger } from "../../logger.js";
import { spotOf, type SurfaceCore } from "../core/inbound.js";
import { listenForCard } from "./card-clicks.js";
import { FORM_CARD } from "./form-message.js";
import { FORM_MODAL, formModal, modalErrors, readFormSubmission } from "./form-modal.js";
import { conversationAt } from "./slack-place.js";
import type { SlackClicked } from "./slack-refs.js";
import { refOfContext } from "./install/workspace-ref.js";
import { enterpriseOf } from "./slack-clicks.js";

export function listenForForms(bolt: App, core: SurfaceCore<SlackClicked>, logger: Logger): void {
  listenForCard(bolt, FORM_CARD, logger, ({ at, clicked, pressed, value }) => core.form({ at, clicked, formId: value.f, action: pressed }));
  bolt.view(FORM_MODAL, async ({ ack, body, context }) => {
    const read = readFormSubmission(body);
    if (!read) {
      logger.warn("ignored a malformed form submission");
      return void (await ack());
    }
    const conversation = conversationAt({
      team: read.team,
      channel: read.channel,
      traceThreadTs: read.threadTs ?? "",
      ...(read.threadTs ? { replyThreadTs: read.threadTs } : {}),
      ...enterpriseOf(refOfContext(context)),
    });
    const at = spotOf("slack", conversation, { ...read.user, roles: [] });
    // Slack waits 3 s for this ack; the answer is one claim in the store.
    const result = await core.formSubmit({ at, formId: read.formId, inputs: read.inputs, showsProblems: true });
    if (result.kind === "invalid") return void (await ack({ response_action: "errors", errors: modalErrors(result.fields) }));
    await ack();
  });
}

/** Opens the form's modal with the click's trigger. Never throws. */
export async function openFormModal(client: webApi.WebClient, logger: Logger, clicked: SlackClicked, form: PendingForm): Promise<boolean> {
  if (!clicked.triggerId || form.question.kind !== "form") return false;
  try {
    await client.views.open({
      trigger_id: clicked.triggerId,
      view: formModal(form, { channel: clicked.channel, ...(clicked.ts ? { threadTs: clicked.ts } : {}) }),
    });
    return true;
  } catch (error) {
    logger.warn({ err: error, formId: form.formId }, "could not open a server's form");
    return false;
  }
}
