// Where a Discord request came from, in the product's terms: the conversation key (a
// thread is its own conversation, DMs have no guild) and the ids later steps need.
import { ChannelType } from "discord.js";
import type { Person, TaskOrigin } from "../../agent/types.js";

/** "text": a thread can be started on a message; "thread" / "dm" / "other": it cannot. */
export type ChannelKind = "text" | "thread" | "dm" | "other";

export function channelKindOf(type: ChannelType | undefined): ChannelKind {
  switch (type) {
    case ChannelType.GuildText:
    case ChannelType.GuildAnnouncement:
      return "text";
    case ChannelType.PublicThread:
    case ChannelType.PrivateThread:
    case ChannelType.AnnouncementThread:
      return "thread";
    case ChannelType.DM:
    case ChannelType.GroupDM:
      return "dm";
    default:
      return "other";
  }
}

export function personOf(user: { id: string; username: string; globalName: string | null }): Person {
  return { id: user.id, name: user.globalName ?? user.username };
}

export function conversationKey(guildId: string | null, channelId: string): string {
  return guildId ? `discord:${guildId}:${channelId}` : `discord:dm:${channelId}`;
}

export interface RequestSource {
  readonly guildId: string | null;
  readonly channelId: string;
  readonly channelKind: ChannelKind;
  readonly requester: Person;
  /** The message that asked (mentions) or the interaction (slash commands). */
  readonly messageId?: string;
  readonly interactionId?: string;
  /** An /ask's webhook (application id and interaction token): lets any process edit its reply for 15 minutes. */
  readonly interactionWebhook?: { readonly applicationId: string; readonly token: string; readonly at: number };
}

export function discordOrigin(source: RequestSource): TaskOrigin {
  return {
    surface: "discord",
    conversationKey: conversationKey(source.guildId, source.channelId),
    requester: source.requester,
    place: {
      ...(source.guildId ? { guild: source.guildId } : {}),
      channel: source.channelId,
      channelKind: source.channelKind,
      ...(source.messageId ? { message: source.messageId } : {}),
      ...(source.interactionId ? { interaction: source.interactionId } : {}),
      ...(source.interactionWebhook
        ? {
            application: source.interactionWebhook.applicationId,
            interaction_token: source.interactionWebhook.token,
            interaction_at: String(source.interactionWebhook.at),
          }
        : {}),
    },
  };
}

export function placeChannelKind(origin: TaskOrigin): ChannelKind {
  const kind = origin.place.channelKind;
  return kind === "text" || kind === "thread" || kind === "dm" ? kind : "other";
}
