// Who can see a Discord channel, as Discord says now: a channel @everyone may view (its role and
// the channel's overwrites, as discord.js computes them from the guild it holds) is anyone's in the
// server; otherwise the server's members who may view it, listed page by page up to a bound. A DM
// is its recipient's. Anything Discord does not answer (an error, a list longer than the bound, a
// private thread, whose members are not read) is "unknown", so an answer quoting it is held.
import { ChannelType, type Client, PermissionFlagsBits } from "discord.js";
import type { Audience, AudienceReader } from "../../runs/api/audiences.js";
import { cachedAudiences } from "../core/audience-cache.js";
import { placeOf } from "./discord-place.js";

/** Discord lists at most 1,000 members a page; past this many pages the audience is "unknown". */
const MEMBERS_PAGE = 1_000;
const MAX_MEMBER_PAGES = 10;

async function viewersOf(client: Client, channelId: string): Promise<Audience> {
  // Forced: a channel the cache knows only from a message event is partial, without its overwrites.
  const channel = await client.channels.fetch(channelId, { force: true });
  if (!channel) return { kind: "unknown", why: "Discord does not show the channel" };
  if (channel.isDMBased())
    return "recipientId" in channel && client.user
      ? { kind: "members", members: new Set([channel.recipientId, client.user.id]) }
      : { kind: "unknown", why: "a group DM" };
  if (channel.type === ChannelType.PrivateThread) return { kind: "unknown", why: "a private thread" };
  if (channel.permissionsFor(channel.guild.roles.everyone)?.has(PermissionFlagsBits.ViewChannel)) return { kind: "everyone" };
  const members = new Set<string>();
  let after: string | undefined;
  for (let page = 0; page < MAX_MEMBER_PAGES; page++) {
    const listed = await channel.guild.members.list({ limit: MEMBERS_PAGE, ...(after ? { after } : {}), cache: false });
    for (const member of listed.values()) if (channel.permissionsFor(member)?.has(PermissionFlagsBits.ViewChannel)) members.add(member.id);
    if (listed.size < MEMBERS_PAGE) return { kind: "members", members };
    after = listed.lastKey();
  }
  return { kind: "unknown", why: `more than ${MEMBERS_PAGE * MAX_MEMBER_PAGES} members` };
}

export function discordAudiences(client: Client): AudienceReader {
  const reader: AudienceReader = {
    destinationOf: (origin) => placeOf(origin)?.channel,
    audienceOf: (_origin, channel) =>
      viewersOf(client, channel).catch(
        (error: unknown): Audience => ({ kind: "unknown", why: error instanceof Error ? error.message : String(error) }),
      ),
  };
  // A channel id is unique across Discord.
  return cachedAudiences(reader, (_origin, channel) => channel);
}
