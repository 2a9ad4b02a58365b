// Messages that mention the bot in a server channel, and every message in a DM: the reply
// goes to that message, the trace into a thread on the reply. The bot never answers
// itself, other bots or webhooks. Without the message content intent Discord still sends
// the content of these messages, so this works either way.
import type { Message } from "discord.js";
import { channelKindOf, discordOrigin, personOf } from "./conversation.js";
import { EMPTY_QUESTION_TEXT } from "./messages.js";
import { channelSurface } from "./reply-surface.js";
import { createRunView, runTask, type AdapterContext } from "./run-view.js";

export function isForBot(message: Pick<Message, "author" | "webhookId" | "system" | "guildId" | "mentions">, botId: string): boolean {
  if (message.author.bot || message.webhookId || message.system || message.author.id === botId) return false;
  return message.guildId === null || message.mentions.users.has(botId);
}

/** The message without the bot's mention (`<@id>` or `<@!id>`). */
export function questionOf(content: string, botId: string): string {
  return content.replaceAll(`<@${botId}>`, "").replaceAll(`<@!${botId}>`, "").trim();
}

export async function handleMention(context: AdapterContext, message: Message, botId: string): Promise<void> {
  const surface = channelSurface(context.api, message.channelId, message.id);
  const question = questionOf(message.content, botId);
  if (question === "") {
    await surface.setMain({ content: EMPTY_QUESTION_TEXT });
    return;
  }
  const channelKind = channelKindOf(message.channel.type);
  const origin = discordOrigin({ guildId: message.guildId, channelId: message.channelId, channelKind, requester: personOf(message.author), messageId: message.id });
  const view = createRunView(context, surface, { channelKind, question });
  view.begin();
  await runTask(context, view, { origin, text: question });
}
