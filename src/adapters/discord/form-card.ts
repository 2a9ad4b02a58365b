// A server's question shown to the run's requester alone on Discord: an ephemeral follow-up on
// the interaction that started the run while its token lasts (/ask), else a direct message.
import type { REST } from "discord.js";
import type { PendingForm } from "../../contracts/types.js";
import type { Logger } from "../../logger.js";
import { formCardText } from "../core/forms.js";
import type { ChannelApi } from "./channel-api.js";
import type { Interaction } from "./discord-place.js";
import { discordFormat } from "./messages.js";
import { fitsModal, formButtons } from "./form-modal.js";
import { webhookSend } from "./reply-surface.js";

export interface FormCardDeps {
  readonly rest: REST;
  readonly api: ChannelApi;
  readonly logger: Logger;
}

/** Never throws: a card that can't be shown is logged, and the form waits until it expires. */
export async function postFormCard(deps: FormCardDeps, interaction: Interaction | undefined, form: PendingForm): Promise<void> {
  const tooLong =
    form.question.kind === "form" && !fitsModal(form)
      ? `\n(It has ${form.question.fields.length} fields and a Discord form holds 5, so here it can only be declined or dismissed.)`
      : "";
  const message = { content: `${formCardText(form, discordFormat)}${tooLong}`, components: formButtons(form) as never };
  if (interaction) {
    try {
      await webhookSend(deps.rest, interaction, message, true);
      return;
    } catch (error) {
      deps.logger.info({ err: error, formId: form.formId }, "Discord refused the form's ephemeral card; sending it as a direct message");
    }
  }
  try {
    await deps.api.directMessage(form.requester.id, message);
  } catch (error) {
    deps.logger.warn({ err: error, formId: form.formId }, "could not show a server's form to its requester; it waits until it expires");
  }
}
