// Discord's reads and posts under the core's chat tools (core/chat-tools.ts): read_channel and
// post_message accept a channel id or a <#id> mention and act for the person who asked: only on
// channels of the server the request came from that this person may use themselves (the bot
// sees channels they may not). Anything else is an error the model can read and act on.
import {
  ChannelType,
  DiscordAPIError,
  PermissionFlagsBits,
  RESTJSONErrorCodes,
  type Client,
  type GuildBasedChannel,
  type GuildMember,
  type REST,
} from "discord.js";
import { z } from "zod";
import type { TaskOrigin, Tool } from "../../contracts/types.js";
import { chatTools } from "../core/chat-tools.js";
import { splitText } from "../core/split-text.js";
import { createChannelApi } from "./channel-api.js";
import { placeOf } from "./discord-place.js";
import { channelKindOf } from "./discord-events.js";
import { MAX_MESSAGE_CHARS } from "./messages.js";

const MAX_POST_CHARS = 4 * MAX_MESSAGE_CHARS;

const channelRef = z
  .string()
  .trim()
  .regex(/^(?:<#\d{15,21}>|\d{15,21})$/, "expects a channel id (digits only) or a channel mention like <#123456789012345678>")
  .transform((value) => value.replace(/[<#>]/g, ""));

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
    if (error.code === RESTJSONErrorCodes.UnknownChannel)
      return new Error(`There is no channel ${channelId}, or I can't see it. Use a channel id from this server.`);
    if (error.code === RESTJSONErrorCodes.MissingAccess)
      return new Error(`I can't see <#${channelId}> (I'm missing access to it), so I can't ${doing} there.`);
    if (error.code === RESTJSONErrorCodes.MissingPermissions)
      return new Error(`I'm not allowed to ${doing} in <#${channelId}> (missing permissions).`);
    return new Error(`Discord refused to let me ${doing} in <#${channelId}>: ${error.message}`);
  }
  return error instanceof Error ? error : new Error(String(error));
}

type Use = "read" | "post";

/** What the person asking needs in a channel to do this themselves. */
function permissionsNeeded(use: Use, channel: GuildBasedChannel): readonly [bigint, string][] {
  const view: [bigint, string] = [PermissionFlagsBits.ViewChannel, "see"];
  if (use === "read") return [view, [PermissionFlagsBits.ReadMessageHistory, "read the history of"]];
  return [
    view,
    channelKindOf(channel.type) === "thread"
      ? [PermissionFlagsBits.SendMessagesInThreads, "send messages in"]
      : [PermissionFlagsBits.SendMessages, "send messages in"],
  ];
}

async function requesterIn(channel: GuildBasedChannel, origin: TaskOrigin): Promise<GuildMember> {
  try {
    // Forced: without the members intent the cache does not learn about role changes.
    return await channel.guild.members.fetch({ user: origin.requester.id, force: true });
  } catch (error) {
    if (
      error instanceof DiscordAPIError &&
      (error.code === RESTJSONErrorCodes.UnknownMember || error.code === RESTJSONErrorCodes.UnknownUser)
    ) {
      throw new Error(`<@${origin.requester.id}> is not a member of this server, so I can't use its channels for them.`);
    }
    throw explain(error, channel.id, "check who may use the channel");
  }
}

/** A text channel of the requester's server that the requester may use for `use`, or an error the model can read. */
async function channelForRequester(
  client: Client,
  channelId: string,
  origin: TaskOrigin,
  tool: string,
  use: Use,
): Promise<GuildBasedChannel> {
  const asked = placeOf(origin);
  const guild = asked?.guild ?? origin.scope?.workspace;
  if (!guild) throw new Error(`${tool} only works for requests made in a server, not in direct messages.`);
  let channel: Awaited<ReturnType<typeof client.channels.fetch>>;
  try {
    channel = await client.channels.fetch(channelId);
  } catch (error) {
    throw explain(error, channelId, "use the channel");
  }
  // A channel of a server the bot is not connected to here comes back as null.
  if (!channel || channel.isDMBased() || channel.guildId !== guild) {
    throw new Error(`Channel ${channelId} is not in this server; ${tool} only works with channels of the server the request came from.`);
  }
  if (!TEXT_CHANNELS.has(channel.type)) throw new Error(`<#${channelId}> is not a text channel.`);
  if (channel.type === ChannelType.PrivateThread && channel.id !== (asked?.channel ?? origin.scope?.thread)) {
    throw new Error(`<#${channelId}> is a private thread; ${tool} only uses a private thread when the request was made inside it.`);
  }
  const permissions = channel.permissionsFor(await requesterIn(channel, origin));
  const missing = permissionsNeeded(use, channel).find(([flag]) => !permissions?.has(flag));
  if (missing) {
    throw new Error(
      `${tool} only uses channels the person asking may use, and <@${origin.requester.id}> can't ${missing[1]} <#${channelId}>.`,
    );
  }
  return channel;
}

/** `writeRest` never retries a request: a post that failed on the way (a 5xx) may still have been made. */
export function createDiscordTools(client: Client, writeRest: REST): Tool[] {
  const api = createChannelApi(client.rest);
  const writes = createChannelApi(writeRest);
  return chatTools({
    platform: "Discord",
    channel: channelRef,
    maxPostChars: MAX_POST_CHARS,
    async readChannel(origin, channelId, limit) {
      const channel = await channelForRequester(client, channelId, origin, "read_channel", "read");
      try {
        const messages = await api.recentMessages(channel.id, limit);
        return messages.map(({ id, timestamp, author, content }) => ({
          id,
          at: timestamp,
          author: `${author.global_name ?? author.username}${author.bot ? " (bot)" : ""}`,
          text: content,
        }));
      } catch (error) {
        throw explain(error, channel.id, "read messages");
      }
    },
    async postMessage(origin, channelId, text) {
      const channel = await channelForRequester(client, channelId, origin, "post_message", "post");
      const ids: string[] = [];
      try {
        for (const part of splitText(text, MAX_MESSAGE_CHARS)) ids.push((await writes.send(channel.id, { content: part })).messageId);
      } catch (error) {
        const posted = ids.length > 0 ? ` (${ids.length} part${ids.length === 1 ? " was" : "s were"} posted before that)` : "";
        throw new Error(`${explain(error, channel.id, "post messages").message}${posted}`);
      }
      return `Posted ${ids.length === 1 ? "1 message" : `${ids.length} messages`} in <#${channel.id}> (first message id ${ids[0]}).`;
    },
  });
}
