// The Stop button on a run's progress message, and its clicks (from the persistent
// interactionCreate handler, so any process can take one). The custom id names the run and
// nothing else; the service decides who may stop it and stops it wherever it runs. The person
// who stopped it sees the run's summary with "Stopped by <name>." in the run's own message.
import { ButtonStyle, ComponentType, MessageFlags, type ButtonInteraction } from "discord.js";
import { isApprover, roleIdsOf } from "./approval-clicks.js";
import type { ButtonRow } from "./approval-buttons.js";
import { personOf } from "./conversation.js";
import { BAD_BUTTON_TEXT, NO_PINGS } from "./messages.js";
import type { AdapterContext } from "./run-view.js";
import { stopRefusalText } from "../core/stop-refusal.js";

const PREFIX = "stop:";
const CUSTOM_ID = /^stop:([^:\s]{1,32})$/;

export const isStopCustomId = (customId: string) => customId.startsWith(PREFIX);

/** The run id of one of our Stop buttons, or undefined (clicks are untrusted input). */
export function parseStopCustomId(customId: string): string | undefined {
  return CUSTOM_ID.exec(customId)?.[1];
}

export function stopButtons(runId: string): ButtonRow[] {
  return [
    {
      type: ComponentType.ActionRow,
      components: [{ type: ComponentType.Button, style: ButtonStyle.Secondary, label: "Stop", custom_id: `${PREFIX}${runId}` }],
    },
  ];
}

export async function handleStopClick(context: AdapterContext, interaction: ButtonInteraction): Promise<void> {
  const runId = parseStopCustomId(interaction.customId);
  if (!runId) {
    await interaction.reply({ content: BAD_BUTTON_TEXT, flags: MessageFlags.Ephemeral });
    return;
  }
  await interaction.deferUpdate();
  const by = personOf(interaction.user);
  const ephemeral = (content: string) => interaction.followUp({ content, flags: MessageFlags.Ephemeral, allowedMentions: NO_PINGS });
  try {
    const result = await context.service.stop({
      runId,
      stoppedBy: by,
      isApprover: isApprover(context.deciders, by.id, roleIdsOf(interaction.member)),
    });
    const refusal = stopRefusalText(result);
    if (refusal) await ephemeral(refusal);
  } catch (error) {
    context.logger.error({ err: error, runId }, "handling a Stop click failed");
    await ephemeral("I could not stop the run just now; please click Stop again in a moment.").catch(() => undefined);
  }
}
