// /ask, /memory, /forget and /tools. Each is acknowledged at once (Discord allows 3 s): /ask with
// a public deferred reply that later becomes the answer; /memory, /forget and /tools ephemerally.
import { MessageFlags, type ChatInputCommandInteraction } from "discord.js";
import { toolListText } from "../core/tool-list-text.js";
import { ASK, AUDIT, FEEDBACK, FORGET, MEMORY, QUESTION_OPTION, SETTINGS, TOOLS } from "./command-definitions.js";
import { feedbackCommand } from "./feedback.js";
import { admitCommand, auditCommand, settingsCommand } from "./governance-commands.js";
import { channelKindOf, conversationKey, discordOrigin, personOf, type RequestSource } from "./conversation.js";
import { EMPTY_QUESTION_TEXT, forgetText, memoryText, NO_PINGS } from "./messages.js";
import { interactionReplySurface } from "./reply-surface.js";
import { submitTask, type AdapterContext } from "./run-view.js";

const NO_CHANNEL_TEXT = "I can't tell which channel this came from, so I can't answer here.";

export async function handleSlashCommand(context: AdapterContext, interaction: ChatInputCommandInteraction): Promise<void> {
  switch (interaction.commandName) {
    case ASK:
      return ask(context, interaction);
    case MEMORY:
    case FORGET:
      return memoryCommand(context, interaction);
    case AUDIT:
      return auditCommand(context, interaction);
    case SETTINGS:
      return settingsCommand(context, interaction);
    case FEEDBACK:
      return feedbackCommand(context, interaction);
    case TOOLS:
      return interaction
        .reply({ content: toolsContent(context.service.toolList("discord")), flags: MessageFlags.Ephemeral, allowedMentions: NO_PINGS })
        .then(() => {});
    default:
      await interaction.reply({ content: `I don't know the command /${interaction.commandName}.`, flags: MessageFlags.Ephemeral });
  }
}

/** Discord's message limit is 2,000 characters: a long list is cut at a line, saying how many more there are. */
const TOOLS_CHARS = 1_900;

/** In a code block, so names like fs__read_file don't turn into underlines. */
function toolsContent(tools: Parameters<typeof toolListText>[0]): string {
  const text = toolListText(tools).replaceAll("`", "'");
  if (text.length <= TOOLS_CHARS) return `\`\`\`\n${text}\n\`\`\``;
  const shown = text.slice(0, text.lastIndexOf("\n", TOOLS_CHARS));
  const hidden = text
    .slice(shown.length)
    .split("\n")
    .filter((line) => line.startsWith("- ")).length;
  return `\`\`\`\n${shown}\n… and ${hidden} more\n\`\`\``;
}

function sourceOf(interaction: ChatInputCommandInteraction, channelId: string): RequestSource {
  return {
    guildId: interaction.guildId,
    channelId,
    channelKind: channelKindOf(interaction.channel?.type),
    requester: personOf(interaction.user),
    interactionId: interaction.id,
  };
}

async function ask(context: AdapterContext, interaction: ChatInputCommandInteraction): Promise<void> {
  const question = (interaction.options.getString(QUESTION_OPTION) ?? "").trim();
  const channelId = interaction.channelId;
  // Admission comes before the deferral, so a refusal can be the private (ephemeral) reply.
  if (question !== "" && channelId && !(await admitCommand(context, interaction, discordOrigin(sourceOf(interaction, channelId))))) return;
  await interaction.deferReply();
  if (question === "" || !channelId) {
    await interaction.editReply({ content: question === "" ? EMPTY_QUESTION_TEXT : NO_CHANNEL_TEXT, allowedMentions: NO_PINGS });
    return;
  }
  // The webhook lets whichever process runs it (also after a restart) edit this reply for 15 minutes.
  const source = {
    ...sourceOf(interaction, channelId),
    interactionWebhook: { applicationId: interaction.applicationId, token: interaction.token, at: context.clock() },
  };
  await submitTask(
    context,
    interactionReplySurface(interaction),
    { origin: discordOrigin(source), text: question, admitted: true },
    interaction.id,
  );
}

async function memoryCommand(context: AdapterContext, interaction: ChatInputCommandInteraction): Promise<void> {
  await interaction.deferReply({ flags: MessageFlags.Ephemeral });
  const channelId = interaction.channelId;
  if (!channelId) {
    await interaction.editReply({ content: NO_CHANNEL_TEXT });
    return;
  }
  const key = conversationKey(interaction.guildId, channelId);
  try {
    const content =
      interaction.commandName === MEMORY
        ? memoryText(await context.service.rememberedFacts(key))
        : forgetText(await context.service.forget(key));
    await interaction.editReply({ content, allowedMentions: NO_PINGS });
  } catch (error) {
    context.logger.error({ err: error, conversationKey: key }, `/${interaction.commandName} failed`);
    await interaction.editReply({ content: "I could not reach my memory just now; please try again in a moment." });
  }
}
