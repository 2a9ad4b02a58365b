// Discord API objects as the real API shapes them, for the fake server: users, members,
// guilds, channels, messages and interactions. Only fields discord.js reads are filled in.
import {
  ChannelType,
  type InteractionType,
  type OverwriteType,
  PermissionFlagsBits,
  type APIAttachment,
  type APIChannel,
  type APIMessage,
  type APIUser,
} from "discord.js";

export interface FakeUser {
  readonly id: string;
  readonly username: string;
  readonly bot?: boolean;
}

export interface FakeChannel {
  readonly id: string;
  readonly name: string;
  readonly type: ChannelType;
  readonly guildId?: string;
  readonly parentId?: string;
  /** DM channels: the other person. */
  readonly recipient?: FakeUser;
  /** Threads: who started it (Discord's owner_id). */
  readonly ownerId?: string;
  /** Private threads: the ids of the people (and the bot) in it. */
  readonly threadMembers?: readonly string[];
  /** Guild channels: permission overwrites (none: everyone gets the server-wide permissions). */
  readonly overwrites?: readonly FakeOverwrite[];
}

/** A channel permission overwrite for a role (the guild id is @everyone) or a member. */
export interface FakeOverwrite {
  readonly id: string;
  readonly type: OverwriteType;
  readonly allow?: bigint;
  readonly deny?: bigint;
}

/** What @everyone may do server-wide, like a fresh server: see, read and write in every channel. */
export const EVERYONE_PERMISSIONS =
  PermissionFlagsBits.ViewChannel |
  PermissionFlagsBits.SendMessages |
  PermissionFlagsBits.SendMessagesInThreads |
  PermissionFlagsBits.CreatePublicThreads |
  PermissionFlagsBits.ReadMessageHistory |
  PermissionFlagsBits.AddReactions |
  PermissionFlagsBits.EmbedLinks |
  PermissionFlagsBits.AttachFiles |
  PermissionFlagsBits.UseApplicationCommands;

export interface FakeRole {
  readonly id: string;
  readonly name: string;
  /** Server-wide permissions the role adds; default none. */
  readonly permissions?: bigint;
  /** A bot's managed role: Discord tags it with the bot's user id. */
  readonly botId?: string;
}

export interface FakeGuild {
  readonly id: string;
  readonly name: string;
  readonly ownerId: string;
  readonly roles: readonly FakeRole[];
}

let snowflake = 1_200_000_000_000_000_000n;

/** A fresh 19-digit id, increasing like Discord's. */
export function nextSnowflake(): string {
  snowflake += 1n;
  return snowflake.toString();
}

export function apiUser(user: FakeUser): APIUser {
  return { id: user.id, username: user.username, discriminator: "0", global_name: user.username, avatar: null, bot: user.bot ?? false };
}

export function apiMember(user: FakeUser, roles: readonly string[]) {
  return {
    user: apiUser(user),
    roles: [...roles],
    nick: null,
    avatar: null,
    joined_at: "2024-01-01T00:00:00.000Z",
    premium_since: null,
    deaf: false,
    mute: false,
    flags: 0,
    pending: false,
    permissions: "2248473465835073",
    communication_disabled_until: null,
  };
}

export function apiChannel(channel: FakeChannel): APIChannel {
  if (channel.type === ChannelType.DM) {
    return {
      id: channel.id,
      type: ChannelType.DM,
      last_message_id: null,
      recipients: channel.recipient ? [apiUser(channel.recipient)] : [],
    } as APIChannel;
  }
  const base = {
    id: channel.id,
    type: channel.type,
    name: channel.name,
    guild_id: channel.guildId,
    position: 0,
    permission_overwrites: (channel.overwrites ?? []).map((overwrite) => ({
      id: overwrite.id,
      type: overwrite.type,
      allow: String(overwrite.allow ?? 0n),
      deny: String(overwrite.deny ?? 0n),
    })),
    nsfw: false,
    parent_id: channel.parentId ?? null,
    rate_limit_per_user: 0,
    topic: null,
    last_message_id: null,
  };
  if (channel.type === ChannelType.PublicThread || channel.type === ChannelType.PrivateThread) {
    return {
      ...base,
      owner_id: channel.ownerId ?? "0",
      member_count: 1,
      message_count: 0,
      total_message_sent: 0,
      thread_metadata: { archived: false, auto_archive_duration: 1440, archive_timestamp: new Date().toISOString(), locked: false },
    } as unknown as APIChannel;
  }
  return base as unknown as APIChannel;
}

export function apiRole(role: FakeRole, position: number) {
  return {
    id: role.id,
    name: role.name,
    color: 0,
    colors: { primary_color: 0, secondary_color: null, tertiary_color: null },
    hoist: false,
    icon: null,
    unicode_emoji: null,
    position,
    permissions: String(role.permissions ?? 0n),
    managed: role.botId !== undefined,
    mentionable: false,
    flags: 0,
    ...(role.botId ? { tags: { bot_id: role.botId } } : {}),
  };
}

export function apiGuild(
  guild: FakeGuild,
  channels: readonly FakeChannel[],
  botMember: ReturnType<typeof apiMember>,
  threads: readonly FakeChannel[] = [],
) {
  return {
    id: guild.id,
    name: guild.name,
    icon: null,
    splash: null,
    discovery_splash: null,
    owner_id: guild.ownerId,
    afk_channel_id: null,
    afk_timeout: 300,
    verification_level: 0,
    default_message_notifications: 0,
    explicit_content_filter: 0,
    roles: [
      apiRole({ id: guild.id, name: "@everyone", permissions: EVERYONE_PERMISSIONS }, 0),
      ...guild.roles.map((role, index) => apiRole(role, index + 1)),
    ],
    emojis: [],
    stickers: [],
    features: [],
    mfa_level: 0,
    system_channel_id: null,
    system_channel_flags: 0,
    rules_channel_id: null,
    vanity_url_code: null,
    description: null,
    banner: null,
    premium_tier: 0,
    preferred_locale: "en-US",
    public_updates_channel_id: null,
    nsfw_level: 0,
    premium_progress_bar_enabled: false,
    joined_at: "2024-01-01T00:00:00.000Z",
    large: false,
    unavailable: false,
    member_count: 3,
    voice_states: [],
    members: [botMember],
    channels: channels.map((channel) => {
      const { guild_id: _omitted, ...rest } = apiChannel(channel) as unknown as Record<string, unknown>;
      return rest;
    }),
    threads: threads.map((thread) => apiChannel(thread)),
    presences: [],
    stage_instances: [],
    guild_scheduled_events: [],
    soundboard_sounds: [],
  };
}

export interface MessageFields {
  readonly id?: string;
  readonly channelId: string;
  readonly guildId?: string;
  readonly author: FakeUser;
  readonly content: string;
  readonly mentions?: readonly FakeUser[];
  readonly mentionRoles?: readonly string[];
  readonly components?: unknown[];
  readonly flags?: number;
  readonly replyTo?: string;
  readonly webhookId?: string;
  readonly interactionType?: number;
  readonly attachments?: readonly APIAttachment[];
}

export function apiMessage(fields: MessageFields): APIMessage & { guild_id?: string } {
  return {
    id: fields.id ?? nextSnowflake(),
    channel_id: fields.channelId,
    ...(fields.guildId ? { guild_id: fields.guildId } : {}),
    author: apiUser(fields.author),
    content: fields.content,
    timestamp: new Date().toISOString(),
    edited_timestamp: null,
    tts: false,
    mention_everyone: false,
    mentions: (fields.mentions ?? []).map(apiUser),
    mention_roles: [...(fields.mentionRoles ?? [])],
    attachments: [...(fields.attachments ?? [])],
    embeds: [],
    pinned: false,
    type: fields.replyTo ? 19 : (fields.interactionType ?? 0),
    flags: fields.flags ?? 0,
    components: (fields.components ?? []) as APIMessage["components"],
    ...(fields.webhookId ? { webhook_id: fields.webhookId } : {}),
    ...(fields.replyTo
      ? {
          message_reference: {
            type: 0,
            message_id: fields.replyTo,
            channel_id: fields.channelId,
            ...(fields.guildId ? { guild_id: fields.guildId } : {}),
          },
        }
      : {}),
  } as APIMessage & { guild_id?: string };
}

export interface InteractionFields {
  readonly id: string;
  readonly token: string;
  readonly applicationId: string;
  readonly user: FakeUser;
  readonly channel: FakeChannel;
  readonly roles?: readonly string[];
  readonly data: Record<string, unknown>;
  readonly type: InteractionType;
  readonly message?: APIMessage;
}

export function apiInteraction(fields: InteractionFields) {
  const inGuild = fields.channel.guildId !== undefined;
  return {
    id: fields.id,
    application_id: fields.applicationId,
    type: fields.type,
    token: fields.token,
    version: 1,
    data: fields.data,
    channel: apiChannel(fields.channel),
    channel_id: fields.channel.id,
    ...(inGuild
      ? {
          guild_id: fields.channel.guildId,
          member: apiMember(fields.user, fields.roles ?? []),
          guild_locale: "en-US",
          context: 0,
          authorizing_integration_owners: { "0": fields.channel.guildId },
        }
      : { user: apiUser(fields.user), context: 1, authorizing_integration_owners: { "0": fields.user.id } }),
    ...(fields.message ? { message: fields.message } : {}),
    app_permissions: "2248473465835073",
    locale: "en-US",
    entitlements: [],
    attachment_size_limit: 10_485_760,
  };
}
