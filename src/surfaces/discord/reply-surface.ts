// Where a run's messages go. Each surface has a main message (created by the first
// `setMain`, edited by the next ones: progress, then the answer) and can post more
// messages below it (answer parts, approval requests).
//   /ask: the main message is the deferred interaction reply; more go as follow-ups.
//   A button click: the rest of the run answers through the click's own interaction webhook
//     (an /ask token lives only 15 minutes): the main message is its first follow-up.
//   A mention or an expiry: plain channel messages, the main one a reply.
import { Routes, type REST, type RepliableInteraction } from "discord.js";
import { z } from "zod";
import type { ChannelApi, OutgoingMessage, SentMessage } from "./channel-api.js";
import { NO_PINGS, NO_PINGS_API } from "./messages.js";

const WebhookMessage = z.object({ id: z.string(), channel_id: z.string() });

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

/**
 * The deferred reply of an interaction, edited through its webhook with the interaction's token:
 * needs no interaction object, so any process can answer an /ask for 15 minutes.
 */
export function webhookSurface(rest: REST, applicationId: string, token: string, main: "original" | "followup" = "original"): ReplySurface {
  const body = (message: OutgoingMessage) => ({
    content: message.content,
    allowed_mentions: NO_PINGS_API,
    ...(message.components ? { components: message.components } : {}),
  });
  const sent = (raw: unknown): SentMessage => {
    const message = WebhookMessage.parse(raw);
    return { channelId: message.channel_id, messageId: message.id };
  };
  const post = async (message: OutgoingMessage) =>
    sent(
      await rest.post(Routes.webhook(applicationId, token), {
        body: body(message),
        auth: false,
        query: new URLSearchParams({ wait: "true" }),
      }),
    );
  const edit = async (id: string, message: OutgoingMessage) =>
    sent(await rest.patch(Routes.webhookMessage(applicationId, token, id), { body: body(message), auth: false }));
  // "followup" (a click): the interaction's own message is the approval request, so the run's main message is its first follow-up.
  let followUp: SentMessage | undefined;
  return {
    async setMain(message) {
      if (main === "original") return edit("@original", message);
      followUp = followUp ? await edit(followUp.messageId, message) : await post(message);
      return followUp;
    },
    post,
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
