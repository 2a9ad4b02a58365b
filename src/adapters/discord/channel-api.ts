// The few channel operations the bot makes with its own token, over discord.js's REST
// client: they need no cache and no interaction token, so they also work after a restart
// and after an interaction's 15 minutes are over. Responses are checked before use.
import { Routes, type REST } from "discord.js";
import { z } from "zod";
import type { UploadFile } from "../core/cards.js";
import type { ButtonRow, LinkRow } from "./buttons.js";
import { NO_PINGS_API } from "./messages.js";

export interface OutgoingMessage {
  readonly content: string;
  /** Left out: unchanged on edit, none on send. Empty: removes them. */
  readonly components?: readonly (ButtonRow | LinkRow)[];
  /** The one person this message may ping (the content names them); nobody else ever is. */
  readonly ping?: string;
  /** Uploaded with the message (multipart), each within the bot's upload limit (checked by the core). */
  readonly files?: readonly UploadFile[];
}

export interface SentMessage {
  readonly channelId: string;
  readonly messageId: string;
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

export type ChannelMessage = z.infer<typeof MessagesResponse>[number];

/** A day: long enough for a conversation, short enough to fall out of the sidebar. */
const THREAD_ARCHIVE_MINUTES = 1440;

export function messageBody(message: OutgoingMessage) {
  const allowed = message.ping ? { ...NO_PINGS_API, users: [message.ping] } : NO_PINGS_API;
  const attachments = message.files?.map((file, index) => ({ id: index, filename: file.name }));
  return {
    content: message.content,
    allowed_mentions: allowed,
    ...(message.components ? { components: message.components } : {}),
    ...(attachments ? { attachments } : {}),
  };
}

/** The message's files as discord.js's REST sends them (`files[n]` beside `payload_json`). */
export function messageFiles(message: OutgoingMessage) {
  return message.files ? { files: message.files.map((file) => ({ name: file.name, data: file.data, contentType: file.mime })) } : {};
}

/** A message Discord says it sent (a channel's or a webhook's), checked. */
export function sent(raw: unknown): SentMessage {
  const message = MessageResponse.parse(raw);
  return { channelId: message.channel_id, messageId: message.id };
}

export function createChannelApi(rest: REST): ChannelApi {
  return {
    async send(channelId, message, replyTo) {
      const reference = replyTo ? { message_reference: { message_id: replyTo, fail_if_not_exists: false } } : {};
      const body = { ...messageBody(message), ...reference };
      return sent(await rest.post(Routes.channelMessages(channelId), { body, ...messageFiles(message) }));
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
      return messages.reverse();
    },
    async directMessage(userId, message) {
      const channel = ChannelResponse.parse(await rest.post(Routes.userChannels(), { body: { recipient_id: userId } }));
      return sent(await rest.post(Routes.channelMessages(channel.id), { body: messageBody(message) }));
    },
  };
}
