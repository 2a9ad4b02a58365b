// Messages that mention the bot in a server channel (the bot itself, or its managed role, which
// autocomplete often inserts for "@bot"), and every message in a DM: the reply goes to that
// message, the trace into a thread on the reply. The bot never answers
// itself, other bots or webhooks. Without the message content intent Discord still sends
// the content of these messages, so this works either way.
import type { Message } from "discord.js";

type Mentioning = Pick<Message, "author" | "webhookId" | "system" | "guildId" | "mentions">;

/** The ids of the bot's own managed roles this message mentions (Discord tags them with the bot's id). */
export function botRolesMentioned(message: Pick<Message, "mentions">, botId: string): string[] {
  return [...message.mentions.roles.values()].filter((role) => role.tags?.botId === botId).map((role) => role.id);
}

export function isForBot(message: Mentioning, botId: string): boolean {
  if (message.author.bot || message.webhookId || message.system || message.author.id === botId) return false;
  return message.guildId === null || message.mentions.users.has(botId) || botRolesMentioned(message, botId).length > 0;
}

/** The message without the bot's mention (`<@id>`, `<@!id>`, or `<@&role>` for its managed roles). */
export function questionOf(content: string, botId: string, botRoles: readonly string[] = []): string {
  const mentions = [`<@${botId}>`, `<@!${botId}>`, ...botRoles.map((role) => `<@&${role}>`)];
  return mentions.reduce((text, mention) => text.replaceAll(mention, ""), content).trim();
}
