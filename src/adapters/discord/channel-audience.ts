// Who can see a Discord channel, as Discord says now: a channel @everyone may view (its role and
// the channel's overwrites, as discord.js computes them from the guild it holds) is anyone's in the
// server; otherwise the server's members who may view it, listed page by page up to a bound. A
// private thread is its members' and, as Discord shows it, of everyone who may view its parent and
// manage threads there. A DM is its recipient's. Anything Discord does not answer (an error, a list
// longer than the bound, a group DM) is "unknown", so an answer quoting it is held.
import { ChannelType, type Client, type GuildBasedChannel, type GuildMember, PermissionFlagsBits, type ThreadChannel } from "discord.js";
import type { Audience, AudienceReader } from "../../runs/api/audiences.js";
import { cachedAudiences } from "../core/audience-cache.js";
import { placeOf } from "./discord-place.js";

/** Discord lists at most 1,000 members a page; past this many pages the audience is "unknown". */
const MEMBERS_PAGE = 1_000;
const MAX_MEMBER_PAGES = 10;
const MEMBERS_BOUND = `more than ${MEMBERS_PAGE * MAX_MEMBER_PAGES} members`;

async function viewersOf(client: Client, channelId: string): Promise<Audience> {
  // Forced: a channel the cache knows only from a message event is partial, without its overwrites.
  const channel = await client.channels.fetch(channelId, { force: true });
  if (!channel) return { kind: "unknown", why: "Discord does not show the channel" };
  if (channel.isDMBased())
    return "recipientId" in channel && client.user
      ? { kind: "members", members: new Set([channel.recipientId, client.user.id]) }
      : { kind: "unknown", why: "a group DM" };
  if (channel.type === ChannelType.PrivateThread) return privateThreadViewers(client, channel);
  if (channel.permissionsFor(channel.guild.roles.everyone)?.has(PermissionFlagsBits.ViewChannel)) return { kind: "everyone" };
  const members = await serverMembersWhere(
    channel,
    (member) => channel.permissionsFor(member)?.has(PermissionFlagsBits.ViewChannel) ?? false,
  );
  return members ? { kind: "members", members } : { kind: "unknown", why: MEMBERS_BOUND };
}

async function privateThreadViewers(client: Client, thread: ThreadChannel): Promise<Audience> {
  // Forced like the thread: whether someone may manage threads is in the parent's overwrites.
  const parent = thread.parentId ? await client.channels.fetch(thread.parentId, { force: true }) : null;
  if (!parent || parent.isDMBased()) return { kind: "unknown", why: "Discord does not show the thread's channel" };
  // Without `with_member`, Discord lists a thread's members whole (at most 1,000 may join one).
  const joined = await thread.members.fetch({ cache: false });
  const managers = await serverMembersWhere(
    parent,
    (member) => parent.permissionsFor(member)?.has([PermissionFlagsBits.ViewChannel, PermissionFlagsBits.ManageThreads]) ?? false,
  );
  return managers ? { kind: "members", members: new Set([...joined.keys(), ...managers]) } : { kind: "unknown", why: MEMBERS_BOUND };
}

/** The ids of the server's members for whom `allowed` holds, page by page; undefined past the bound. */
async function serverMembersWhere(channel: GuildBasedChannel, allowed: (member: GuildMember) => boolean): Promise<Set<string> | undefined> {
  const members = new Set<string>();
  let after: string | undefined;
  for (let page = 0; page < MAX_MEMBER_PAGES; page++) {
    const listed = await channel.guild.members.list({ limit: MEMBERS_PAGE, ...(after ? { after } : {}), cache: false });
    for (const member of listed.values()) if (allowed(member)) members.add(member.id);
    if (listed.size < MEMBERS_PAGE) return members;
    after = listed.lastKey();
  }
  return undefined;
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
