// The few channel operations the bot makes with its own token, over discord.js's REST
// client: they need no cache and no interaction token, so they also work after a restart
// and after an interaction's 15 minutes are over. Responses are checked before use.
import { Routes, type REST } from "discord.js";
import { z } from "zod";
import type { ButtonRow } from "./buttons.js";
import { NO_PINGS_API } from "./messages.js";

export interface OutgoingMessage {
  readonly content: string;
  /** Left out: unchanged on edit, none on send. Empty: removes them. */
  readonly components?: readonly ButtonRow[];
  /** The one person this message may ping (the content names them); nobody else ever is. */
  readonly ping?: string;
}

export interface SentMessage {
  readonly channelId: string;
  readonly messageId: string;
}

export interface ChannelMessage {
  readonly id: string;
  readonly author: string;
  readonly bot: boolean;
  readonly content: string;
  readonly timestamp: string;
}

export interface ChannelApi {
  send(channelId: string, message: OutgoingMessage, replyTo?: string): Promise<SentMessage>;
  edit(target: SentMessage, message: OutgoingMessage): Promise<SentMessage>;
  /** Starts a public thread on a message; returns the thread's channel id. */
  startThread(on: SentMessage, name: string): Promise<string>;
  /** Newest last. */
  recentMessages(channelId: string, limit: number): Promise<ChannelMessage[]>;
  /** A direct message from the bot (Discord refuses one to a person who takes none). */
  directMessage(userId: string, message: OutgoingMessage): Promise<SentMessage>;
}

const MessageResponse = z.object({ id: z.string(), channel_id: z.string() });
const ChannelResponse = z.object({ id: z.string() });
const MessagesResponse = z.array(
  z.object({
    id: z.string(),
    content: z.string().default(""),
    timestamp: z.string(),
    author: z.object({ id: z.string(), username: z.string(), global_name: z.string().nullish(), bot: z.boolean().optional() }),
  }),
);

/** A day: long enough for a conversation, short enough to fall out of the sidebar. */
const THREAD_ARCHIVE_MINUTES = 1440;

export function messageBody(message: OutgoingMessage) {
  const allowed = message.ping ? { ...NO_PINGS_API, users: [message.ping] } : NO_PINGS_API;
  return { content: message.content, allowed_mentions: allowed, ...(message.components ? { components: message.components } : {}) };
}

export function createChannelApi(rest: REST): ChannelApi {
  const sent = (raw: unknown): SentMessage => {
    const message = MessageResponse.parse(raw);
    return { channelId: message.channel_id, messageId: message.id };
  };
  return {
    async send(channelId, message, replyTo) {
      const reference = replyTo ? { message_reference: { message_id: replyTo, fail_if_not_exists: false } } : {};
      return sent(await rest.post(Routes.channelMessages(channelId), { body: { ...messageBody(message), ...reference } }));
    },
    async edit(target, message) {
      return sent(await rest.patch(Routes.channelMessage(target.channelId, target.messageId), { body: messageBody(message) }));
    },
    async startThread(on, name) {
      const thread = ChannelResponse.parse(
        await rest.post(Routes.threads(on.channelId, on.messageId), { body: { name, auto_archive_duration: THREAD_ARCHIVE_MINUTES } }),
      );
      return thread.id;
    },
    async recentMessages(channelId, limit) {
      const messages = MessagesResponse.parse(
        await rest.get(Routes.channelMessages(channelId), { query: new URLSearchParams({ limit: String(limit) }) }),
      );
      return messages
        .map((message) => ({
          id: message.id,
          author: message.author.global_name ?? message.author.username,
          bot: message.author.bot ?? false,
          content: message.content,
          timestamp: message.timestamp,
        }))
        .reverse();
    },
    async directMessage(userId, message) {
      const channel = ChannelResponse.parse(await rest.post(Routes.userChannels(), { body: { recipient_id: userId } }));
      return sent(await rest.post(Routes.channelMessages(channel.id), { body: messageBody(message) }));
    },
  };
}
