// Where a run's messages go: a main message (created by the first `setMain`, edited by the next
// ones: progress, then the answer) and more messages below it. The way is chosen at each post,
// not when the run starts (a run can wait in its conversation's queue or on an approval for
// longer than an interaction lives): through the interaction's webhook while its token lives
// (a margin under Discord's 15 minutes), else, and from the moment Discord refuses the token, as
// channel messages with the bot's own token, the first of which names the requester and pings
// only them.
//   /ask: the main message is the deferred reply (@original); more go as follow-ups.
//   A click: the rest of the run answers through the click's own webhook; its main message is the first follow-up.
//   A mention or an expiry: channel messages, the main one a reply.
import { DiscordAPIError, RESTJSONErrorCodes, Routes, type REST } from "discord.js";
import type { Logger } from "../../logger.js";
import { messageBody, messageFiles, sent, type ChannelApi, type OutgoingMessage, type SentMessage } from "./channel-api.js";
import type { Interaction } from "./discord-place.js";

/** Discord accepts an interaction token for 15 minutes; a margin leaves time for the answer itself. */
export const INTERACTION_TOKEN_MS = 14 * 60_000;

export interface ReplySurface {
  setMain(message: OutgoingMessage): Promise<SentMessage>;
  post(message: OutgoingMessage): Promise<SentMessage>;
  /** Edits a message `post` sent, the way it was sent. */
  edit(sent: SentMessage, message: OutgoingMessage): Promise<SentMessage>;
}

export interface ReplyOptions {
  readonly rest: REST;
  readonly api: ChannelApi;
  readonly channel: string;
  /** The message the first channel message replies to (the mention, the approval request). */
  readonly replyTo?: string;
  readonly interaction?: Interaction;
  readonly requester: string;
  readonly clock: () => number;
  readonly logger: Logger;
}

/** True while the interaction's token still works (Discord answers 401, or an unknown webhook, once it does not). */
export function isLive(interaction: Interaction | undefined, now: number): interaction is Interaction {
  return interaction !== undefined && now - interaction.at < INTERACTION_TOKEN_MS;
}

function tokenGone(error: unknown): boolean {
  return error instanceof DiscordAPIError && (error.status === 401 || error.code === RESTJSONErrorCodes.UnknownWebhook);
}

export function webhookSend(rest: REST, interaction: Interaction, message: OutgoingMessage, ephemeral = false): Promise<SentMessage> {
  return rest
    .post(Routes.webhook(interaction.application, interaction.token), {
      body: { ...messageBody(message), ...(ephemeral ? { flags: 64 } : {}) },
      ...messageFiles(message),
      auth: false,
      query: new URLSearchParams({ wait: "true" }),
    })
    .then(sent);
}

export function webhookEdit(rest: REST, interaction: Interaction, id: string, message: OutgoingMessage): Promise<SentMessage> {
  return rest
    .patch(Routes.webhookMessage(interaction.application, interaction.token, id), { body: messageBody(message), auth: false })
    .then(sent);
}

export function replySurface(options: ReplyOptions): ReplySurface {
  const { rest, api, interaction, clock, logger } = options;
  let main: { readonly via: "webhook" | "channel"; readonly sent: SentMessage } | undefined;
  let tokenWorks = true;
  /** Messages `post` sent through the interaction's webhook: edited through it too. */
  const byWebhook = new Set<string>();

  /** The webhook while it works; undefined to go by channel. Rethrows what is not a dead token. */
  async function throughWebhook(send: (live: Interaction) => Promise<SentMessage>): Promise<SentMessage | undefined> {
    if (!tokenWorks || !isLive(interaction, clock())) return undefined;
    try {
      return await send(interaction);
    } catch (error) {
      if (!tokenGone(error)) throw error;
      tokenWorks = false;
      logger.info({ channel: options.channel }, "the interaction's token no longer works; answering in the channel");
      return undefined;
    }
  }

  /** A run that began as an interaction names its requester in its channel messages (nobody saw a reply otherwise); only they are pinged. */
  function inChannel(message: OutgoingMessage): OutgoingMessage {
    return interaction ? { ...message, content: `<@${options.requester}> ${message.content}`, ping: options.requester } : message;
  }

  const send = (message: OutgoingMessage) => api.send(options.channel, inChannel(message), main?.sent.messageId ?? options.replyTo);

  return {
    async setMain(message) {
      if (main?.via === "channel") {
        main = { via: "channel", sent: await api.edit(main.sent, inChannel(message)) };
        return main.sent;
      }
      const byWebhook = await throughWebhook((live) =>
        live.kind === "ask"
          ? webhookEdit(rest, live, "@original", message)
          : main
            ? webhookEdit(rest, live, main.sent.messageId, message)
            : webhookSend(rest, live, message),
      );
      main = byWebhook ? { via: "webhook", sent: byWebhook } : { via: "channel", sent: await send(message) };
      return main.sent;
    },
    async post(message) {
      const posted = await throughWebhook((live) => webhookSend(rest, live, message));
      if (posted) byWebhook.add(posted.messageId);
      return posted ?? send(message);
    },
    async edit(sent, message) {
      if (!byWebhook.has(sent.messageId)) return api.edit(sent, inChannel(message));
      return (await throughWebhook((live) => webhookEdit(rest, live, sent.messageId, message))) ?? api.edit(sent, message);
    },
  };
}
