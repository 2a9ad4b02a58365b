// The chat tools the agent gets on Discord, with the same names as on Slack: read_channel
// (read) and post_message (write: the loop asks a person first, then runs it once). Both
// accept a channel id or a <#id> mention and only touch channels of the server the request
// came from; anything else is an error the model can read and act on.
import { ChannelType, DiscordAPIError, type Client } from "discord.js";
import { z } from "zod";
import type { TaskOrigin, Tool } from "../../agent/types.js";
import { splitText } from "../split-text.js";
import { createChannelApi, type ChannelApi, type ChannelInfo } from "./channel-api.js";
import { MAX_MESSAGE_CHARS } from "./messages.js";

const MAX_POST_CHARS = 4 * MAX_MESSAGE_CHARS;

const channelRef = z
  .string()
  .trim()
  .regex(/^(?:<#\d{15,21}>|\d{15,21})$/, "expects a channel id (digits only) or a channel mention like <#123456789012345678>")
  .transform((value) => value.replace(/[<#>]/g, ""));

const ReadChannelArgs = z.object({
  channel: channelRef,
  limit: z.number().int().min(1, "expects at least 1").max(50, "expects at most 50").default(20),
});

const PostMessageArgs = z.object({
  channel: channelRef,
  text: z.string().trim().min(1, "expects some text").max(MAX_POST_CHARS, `expects at most ${MAX_POST_CHARS} characters`),
});

const TEXT_CHANNELS = new Set<number>([
  ChannelType.GuildText,
  ChannelType.GuildAnnouncement,
  ChannelType.GuildVoice,
  ChannelType.PublicThread,
  ChannelType.PrivateThread,
  ChannelType.AnnouncementThread,
]);

/** Explains a Discord refusal in words the model can act on. */
function explain(error: unknown, channelId: string, doing: string): Error {
  if (error instanceof DiscordAPIError) {
    if (error.code === 10003) return new Error(`There is no channel ${channelId}, or I can't see it. Use a channel id from this server.`);
    if (error.code === 50001) return new Error(`I can't see <#${channelId}> (I'm missing access to it), so I can't ${doing} there.`);
    if (error.code === 50013) return new Error(`I'm not allowed to ${doing} in <#${channelId}> (missing permissions).`);
    return new Error(`Discord refused to let me ${doing} in <#${channelId}>: ${error.message}`);
  }
  return error instanceof Error ? error : new Error(String(error));
}

async function channelOfThisServer(api: ChannelApi, channelId: string, origin: TaskOrigin, tool: string): Promise<ChannelInfo> {
  const guild = origin.place.guild;
  if (!guild) throw new Error(`${tool} only works for requests made in a server, not in direct messages.`);
  let channel: ChannelInfo;
  try {
    channel = await api.channel(channelId);
  } catch (error) {
    throw explain(error, channelId, "use the channel");
  }
  if (channel.guildId !== guild) throw new Error(`Channel ${channelId} is not in this server; ${tool} only works with channels of the server the request came from.`);
  if (!TEXT_CHANNELS.has(channel.type)) throw new Error(`<#${channelId}> is not a text channel.`);
  return channel;
}

function line(message: { author: string; bot: boolean; content: string; timestamp: string }): string {
  const when = message.timestamp.slice(0, 16).replace("T", " ");
  return `[${when}] ${message.author}${message.bot ? " (bot)" : ""}: ${message.content.trim() === "" ? "(no text)" : message.content}`;
}

export function createDiscordTools(client: Client): readonly Tool[] {
  const api = createChannelApi(client.rest);

  const readChannel: Tool<z.infer<typeof ReadChannelArgs>> = {
    name: "read_channel",
    description: "Read the latest messages of a Discord channel in this server, oldest first. channel: a channel id or a <#id> mention; limit: how many messages, 1-50 (default 20).",
    schema: ReadChannelArgs,
    effect: "read",
    async execute(args, context) {
      const channel = await channelOfThisServer(api, args.channel, context.origin, "read_channel");
      let messages;
      try {
        messages = await api.recentMessages(channel.id, args.limit);
      } catch (error) {
        throw explain(error, channel.id, "read messages");
      }
      return messages.length === 0 ? `<#${channel.id}> has no messages.` : messages.map(line).join("\n");
    },
  };

  const postMessage: Tool<z.infer<typeof PostMessageArgs>> = {
    name: "post_message",
    description: `Post a message in a Discord channel of this server (a person approves it first). channel: a channel id or a <#id> mention; text: up to ${MAX_POST_CHARS} characters. Mentions in the text do not ping anyone.`,
    schema: PostMessageArgs,
    effect: "write",
    async execute(args, context) {
      const channel = await channelOfThisServer(api, args.channel, context.origin, "post_message");
      const ids: string[] = [];
      try {
        for (const part of splitText(args.text, MAX_MESSAGE_CHARS)) ids.push((await api.send(channel.id, { content: part })).messageId);
      } catch (error) {
        const posted = ids.length > 0 ? ` (${ids.length} part${ids.length === 1 ? " was" : "s were"} posted before that)` : "";
        throw new Error(`${explain(error, channel.id, "post messages").message}${posted}`);
      }
      return `Posted ${ids.length === 1 ? "1 message" : `${ids.length} messages`} in <#${channel.id}> (first message id ${ids[0]}).`;
    },
  };

  return [readChannel, postMessage];
}
