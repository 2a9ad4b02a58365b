// Where a run's messages go. Each surface has a main message (created by the first
// `setMain`, edited by the next ones: progress, then the answer) and can post more
// messages below it (answer parts, approval requests).
//   /ask: the main message is the deferred interaction reply; more go as follow-ups.
//   A button click: the rest of the run answers through the click's own interaction
//     (an /ask token lives only 15 minutes): the main message is its first follow-up.
//   A mention or an expiry: plain channel messages, the main one a reply.
import type { RepliableInteraction } from "discord.js";
import type { ChannelApi, OutgoingMessage, SentMessage } from "./channel-api.js";
import { NO_PINGS } from "./messages.js";

export interface ReplySurface {
  setMain(message: OutgoingMessage): Promise<SentMessage>;
  post(message: OutgoingMessage): Promise<SentMessage>;
}

function options(message: OutgoingMessage) {
  return { content: message.content, allowedMentions: NO_PINGS, ...(message.components ? { components: [...message.components] } : {}) };
}

function sentOf(message: { channelId: string; id: string }): SentMessage {
  return { channelId: message.channelId, messageId: message.id };
}

/** The interaction must already be deferred (or replied to). */
export function interactionReplySurface(interaction: RepliableInteraction): ReplySurface {
  return {
    setMain: async (message) => sentOf(await interaction.editReply(options(message))),
    post: async (message) => sentOf(await interaction.followUp(options(message))),
  };
}

/** The interaction must already be deferred; its original message is left alone. */
export function followUpSurface(interaction: RepliableInteraction): ReplySurface {
  let main: SentMessage | undefined;
  return {
    async setMain(message) {
      main = main ? sentOf(await interaction.editReply({ ...options(message), message: main.messageId })) : sentOf(await interaction.followUp(options(message)));
      return main;
    },
    post: async (message) => sentOf(await interaction.followUp(options(message))),
  };
}

export function channelSurface(api: ChannelApi, channelId: string, replyTo?: string): ReplySurface {
  let main: SentMessage | undefined;
  return {
    async setMain(message) {
      main = main ? await api.edit(main, message) : await api.send(channelId, message, replyTo);
      return main;
    },
    post: (message) => api.send(channelId, message, main?.messageId ?? replyTo),
  };
}
