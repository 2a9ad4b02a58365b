// A message in a server thread that does not mention the bot: for it when the thread is the one
// the bot started on its answer (its owner), and the message mentions nobody else (then it is
// addressed to them). Discord sends these only with the message content intent's content
// (DISCORD_MESSAGE_CONTENT); without it they arrive empty and core/follow-ups.ts leaves them. Pure.
import type { Message } from "discord.js";

type Replying = Pick<Message, "author" | "webhookId" | "system" | "guildId" | "mentions">;

/** A person's message in a server channel that mentions nobody: a thread reply to check further (the channel's kind and owner). */
export function mayBeThreadReply(message: Replying, botId: string): boolean {
  if (message.author.bot || message.webhookId || message.system || message.author.id === botId) return false;
  if (message.guildId === null) return false;
  const { mentions } = message;
  return mentions.users.size === 0 && mentions.roles.size === 0 && !mentions.everyone;
}
