// The settings file on Discord: a refused person told privately (ephemeral for commands, a
// short reply to a mention), `/audit` for admins and `/settings` for anyone, both ephemeral.
import { MessageFlags, type ChatInputCommandInteraction, type Message } from "discord.js";
import type { TaskOrigin } from "../../agent/types.js";
import { roleIdsOf } from "./approval-clicks.js";
import { channelKindOf, discordOrigin, personOf } from "./conversation.js";
import { NO_PINGS, truncate } from "./messages.js";
import type { AdapterContext } from "./run-view.js";

const NOT_SET_UP_TEXT = "No settings file is in use on this bot: every tool, no limits.";

/** Before deferring: a refusal is the interaction's (ephemeral) reply. True when the run may go on. */
export async function admitCommand(
  context: AdapterContext,
  interaction: ChatInputCommandInteraction,
  origin: TaskOrigin,
): Promise<boolean> {
  const admission = await context.service.admit(origin, roleIdsOf(interaction.member), interaction.id);
  if (admission.kind === "admitted") return true;
  context.logger.info({ user: origin.requester.id, refusal: admission.refusal }, "request refused by the settings");
  await interaction.reply({ content: admission.text, flags: MessageFlags.Ephemeral, allowedMentions: NO_PINGS });
  return false;
}

/** A mention can't be answered privately: a short reply to it. A redelivered message is not answered twice. */
export async function admitMention(context: AdapterContext, message: Message, origin: TaskOrigin): Promise<boolean> {
  const admission = await context.service.admit(origin, roleIdsOf(message.member), message.id);
  if (admission.kind === "admitted") return true;
  context.logger.info(
    { user: origin.requester.id, refusal: admission.refusal, repeat: admission.repeat === true },
    "request refused by the settings",
  );
  if (!admission.repeat) await context.api.send(message.channelId, { content: admission.text }, message.id);
  return false;
}

export async function auditCommand(context: AdapterContext, interaction: ChatInputCommandInteraction): Promise<void> {
  await interaction.deferReply({ flags: MessageFlags.Ephemeral });
  const text = context.governance ? await context.governance.audit("discord", interaction.user.id, "markdown") : NOT_SET_UP_TEXT;
  await interaction.editReply({ content: truncate(text), allowedMentions: NO_PINGS });
}

export async function settingsCommand(context: AdapterContext, interaction: ChatInputCommandInteraction): Promise<void> {
  await interaction.deferReply({ flags: MessageFlags.Ephemeral });
  const channelId = interaction.channelId ?? "";
  const origin = discordOrigin({
    guildId: interaction.guildId,
    channelId,
    channelKind: channelKindOf(interaction.channel?.type),
    requester: personOf(interaction.user),
  });
  const text = context.governance ? await context.governance.settings(origin, roleIdsOf(interaction.member)) : NOT_SET_UP_TEXT;
  await interaction.editReply({ content: truncate(text), allowedMentions: NO_PINGS });
}
