// The Discord surface: a discord.js client with only the intents the features need, whose
// events (slash commands, buttons, mentions and DMs) go to the core's flows, and the REST calls
// that show what the core asks. Stopping takes no new work but keeps the gateway open (a mention
// that still arrives is recorded: Discord never sends it again); the client is destroyed only
// once the runs have posted, since destroying it clears the token every post needs.
import { formModal } from "./form-modal.js";
import { postFormCard } from "./form-card.js";
import { once } from "node:events";
import { Client, DiscordjsError, DiscordjsErrorCodes, Events, GatewayIntentBits, Partials, REST, Routes } from "discord.js";
import { z } from "zod";
import type { Config } from "../../config.js";
import { ConfigError } from "../../errors.js";
import { within } from "../../runs/within.js";
import { attempt } from "../core/attempt.js";
import type { SurfaceCore } from "../core/inbound.js";
import type { ChatSurface, SurfaceDeps } from "../core/surface.js";
import { approvalButtons, heldButtons } from "./buttons.js";
import { discordAudiences } from "./channel-audience.js";
import { createChannelApi } from "./channel-api.js";
import { createDiscordTools } from "./chat-tools.js";
import { createDiscordDisplay, type ApprovalMessage } from "./discord-display.js";
import { createDiscordFiles } from "./discord-files.js";
import { createDiscordSchedulePorts } from "./discord-schedules.js";
import { takeInteraction, takeMention, type DiscordClicked } from "./discord-events.js";
import { takeDeletion, takeEdit } from "./message-changes.js";
import { decodeInteraction, placeOf, upgradeOrigin } from "./discord-place.js";
import { noteMessage } from "./link-note.js";
import { approvalText, discordFormat, NO_PINGS, settledLine, withClosingLine } from "./messages.js";
import { isLive, replySurface, webhookEdit, webhookSend } from "./reply-surface.js";

export interface DiscordSurfaceDeps extends SurfaceDeps {
  readonly config: NonNullable<Config["discord"]>;
  /** Ask for the privileged Message Content intent (enable it in the Developer Portal first). Mentions, DMs and commands work without it. */
  readonly messageContent?: boolean;
  readonly clock?: () => number;
  /** Progress edits of one reply are at least this far apart. */
  readonly progressIntervalMs?: number;
  /** The largest answer file uploaded (default Discord's 10 MiB for bots); tests lower it. */
  readonly uploadLimitBytes?: number;
  /** The bot was removed from a server (kicked, banned, or the server deleted): the rest of it goes. Must not throw. */
  readonly removed?: (guild: { readonly id: string }) => Promise<void>;
  /** The bot joined a server (again): it starts clean. Must not throw. */
  readonly joined?: (guild: { readonly id: string }) => Promise<void>;
}

const DESTROY_TIMEOUT_MS = 1_000;
const Snowflake = z.string().regex(/^\d+$/);

export function createDiscordSurface(deps: DiscordSurfaceDeps): ChatSurface<DiscordClicked, ApprovalMessage> {
  const { config } = deps;
  const logger = deps.logger.child({ surface: "discord" });
  const clock = deps.clock ?? Date.now;
  const client = new Client({
    intents: [
      GatewayIntentBits.Guilds,
      GatewayIntentBits.GuildMessages,
      GatewayIntentBits.DirectMessages,
      ...(deps.messageContent ? [GatewayIntentBits.MessageContent] : []),
    ],
    // DMs arrive in channels the cache has never seen; edits and deletions of messages it never saw (before a restart) too.
    partials: [Partials.Channel, Partials.Message],
    allowedMentions: NO_PINGS,
    ...(config.apiUrl ? { rest: { api: config.apiUrl } } : {}),
  });
  // Set before login, so an expiry noticed early can already post.
  client.rest.setToken(config.token);
  /** Writes a person approved run at most once: @discordjs/rest would repeat a request that got a 5xx. Rate limits (not processed) are still waited out. */
  const writeRest = new REST({ retries: 0, ...(config.apiUrl ? { api: config.apiUrl } : {}) }).setToken(config.token);
  const api = createChannelApi(client.rest);
  const events = { client, clock, logger };

  function listen(core: SurfaceCore<DiscordClicked>): void {
    client.on(Events.InteractionCreate, (interaction) => core.track("a Discord interaction", takeInteraction(events, core, interaction)));
    client.on(Events.MessageCreate, (message) => {
      const botId = client.user?.id;
      if (botId) core.track("a Discord message", takeMention(events, core, message, botId));
    });
    client.on(Events.MessageUpdate, (before, message) => {
      const botId = client.user?.id;
      if (botId) core.track("an edited Discord message", takeEdit(events, core, before, message, botId));
    });
    client.on(Events.MessageDelete, (message) => core.track("a deleted Discord message", takeDeletion(events, core, message)));
    // Only a server the bot is gone from: an outage is `guildUnavailable`, and the server comes back.
    client.on(Events.GuildDelete, (guild) => {
      logger.info({ guild: guild.id }, "the bot was removed from a Discord server");
      if (deps.removed) core.track("a server the bot left", deps.removed({ id: guild.id }));
    });
    client.on(Events.GuildCreate, (guild) => {
      logger.info({ guild: guild.id }, "the bot joined a Discord server");
      if (deps.joined) core.track("a server the bot joined", deps.joined({ id: guild.id }));
    });
    client.on(Events.Error, (error) => logger.error({ err: error }, "discord client error"));
    client.on(Events.ShardError, (error) => logger.warn({ err: error }, "discord gateway connection error; discord.js reconnects"));
    client.on(Events.ShardDisconnect, (event) => deps.onConnection?.("down", `the gateway closed the connection (${event.code})`));
    client.on(Events.ShardReconnecting, () => deps.onConnection?.("down", "reconnecting to the gateway"));
    client.on(Events.ShardResume, () => deps.onConnection?.("up"));
    client.on(Events.ShardReady, () => deps.onConnection?.("up"));
  }

  /** Says whether Discord took it; never throws. */
  const tried = (what: string, work: () => Promise<unknown>) =>
    attempt(logger, { level: "info", message: `Discord refused ${what}` }, work);

  return {
    name: "discord",
    format: discordFormat,
    linkStyle: "markdown",
    // One bot in many servers: each server's admins see its own audit and feedback.
    manyWorkspaces: true,
    askHint: "mention me with a question, or use `/ask question:`.",
    commandMark: "/",
    tools: createDiscordTools(client, writeRest),
    files: createDiscordFiles({
      rest: client.rest,
      logger,
      ...(config.apiUrl ? { apiUrl: config.apiUrl } : {}),
      ...(deps.uploadLimitBytes === undefined ? {} : { uploadLimitBytes: deps.uploadLimitBytes }),
    }),
    upgrade: upgradeOrigin,
    refs: {
      keyPrefix: "discord:approval-message",
      schema: z.object({ channelId: Snowflake, messageId: Snowflake, question: z.string().max(200) }),
    },

    async start(core) {
      if (deps.takeEvents === false) return void logger.info("discord adapter ready (REST only: a worker opens no gateway)");
      listen(core);
      const readiness = new AbortController();
      const ready = once(client, Events.ClientReady, { signal: readiness.signal });
      ready.catch(() => undefined);
      try {
        await client.login(config.token);
        await ready;
      } catch (error) {
        readiness.abort();
        const reason = error instanceof Error ? error.message : String(error);
        if (error instanceof DiscordjsError && error.code === DiscordjsErrorCodes.TokenInvalid) {
          throw new ConfigError("DISCORD_TOKEN", `expects a bot token Discord accepts; it answered: ${reason}`, "<hidden>");
        }
        throw new Error(`Could not connect to Discord: ${reason}`);
      }
      logger.info({ bot: client.user?.tag, guilds: client.guilds.cache.size }, "Discord is connected");
    },
    // The gateway stays open: the core tells a click or a command to come back, and records a question.
    stopIntake: async () => {},
    async close() {
      if (!(await within(client.destroy(), DESTROY_TIMEOUT_MS))) logger.warn("the Discord client did not disconnect in time");
    },

    display(request) {
      const place = placeOf(request.origin);
      if (!place) throw new Error("the run's origin has no Discord channel");
      const { below } = request;
      const interaction = decodeInteraction(request.reply);
      const surface = replySurface({
        rest: client.rest,
        api,
        channel: below?.channelId ?? place.channel,
        ...(below ? { replyTo: below.messageId } : place.message ? { replyTo: place.message } : {}),
        ...(interaction ? { interaction } : {}),
        requester: request.origin.requester.id,
        clock,
        logger,
      });
      const question = below?.question ?? request.question;
      const display = createDiscordDisplay({ api, logger, progressIntervalMs: deps.progressIntervalMs ?? 1_000 }, surface, {
        channelKind: place.channelKind,
        question,
      });
      const live = isLive(interaction, clock()) ? interaction : undefined;
      return { ...display, form: (form) => postFormCard({ rest: client.rest, api, logger }, live, form) };
    },
    post(at, text) {
      const interaction = decodeInteraction(at.reply);
      // A slash command's reply is where it answers (ephemeral for the commands, public for /ask).
      if (isLive(interaction, clock()) && interaction.kind !== "click")
        return tried("a command's reply", () => webhookEdit(client.rest, interaction, "@original", { content: text }));
      const place = placeOf(at.origin);
      return place ? tried("a reply", () => api.send(place.channel, { content: text }, place.message)) : Promise.resolve(false);
    },
    whisper(at, text, link) {
      const interaction = decodeInteraction(at.reply);
      if (!isLive(interaction, clock())) return Promise.resolve(false);
      const note = noteMessage(text, link);
      if (interaction.kind === "command")
        return tried("an ephemeral reply", () => webhookEdit(client.rest, interaction, "@original", note));
      return tried("an ephemeral message", async () => {
        // A refused /ask: its public "thinking…" goes, and only the asker sees why. A note with a link is a waiting
        // run's (its Connect link): the run's own message stays, and the run answers there once the person connected.
        if (interaction.kind === "ask" && !link)
          await client.rest.delete(Routes.webhookMessage(interaction.application, interaction.token, "@original"), { auth: false });
        await webhookSend(client.rest, interaction, note, true);
      });
    },
    directMessage: (person, text, _where, link) => tried("a direct message", () => api.directMessage(person.id, noteMessage(text, link))),
    audiences: discordAudiences(client),
    // A bot shows an ephemeral message only in answer to an interaction, which a run's end is not: a direct message.
    offerHeld: (origin, preview, runId) =>
      tried("a held answer's preview", () => api.directMessage(origin.requester.id, { content: preview, components: heldButtons(runId) })),
    ...createDiscordSchedulePorts(client.rest, api, logger),
    async settleApproval(message, card) {
      const line = settledLine(card);
      const settled = (content: string, asked: { readonly runId: string; readonly callId: string } | undefined) => ({
        content: withClosingLine(content, line),
        components: asked ? approvalButtons(asked.runId, asked.callId, { disabled: true }) : [],
      });
      const asked = card.kind === "expired" ? card.approval : undefined;
      const done =
        "clicked" in message
          ? await tried("the approval message's update", () => {
              const { interaction, content, approval } = message.clicked;
              return webhookEdit(client.rest, interaction, "@original", settled(content, approval));
            })
          : asked !== undefined &&
            (await tried("the expired approval message's update", () =>
              api.edit(message.ref, settled(approvalText(asked.pending, asked.deciders), asked.pending)),
            ));
      if (!done) logger.warn("could not update the approval message");
    },
    openForm: async (clicked, form) => {
      const modal = formModal(form);
      return modal !== undefined && clicked.pending !== undefined && (await clicked.pending.showModal(modal));
    },
    answerOpenClick: async (clicked, text) => (await clicked.pending?.reply(text)) ?? false,
    async deleteAnswer(origin, answer) {
      const place = placeOf(origin);
      if (!place || !answer) return;
      // The trace's thread was started on the answer, so it has the answer's id.
      if (place.channelKind === "text")
        await tried("the deletion of a trace thread", () => client.rest.delete(Routes.channel(answer.messageId)));
      await tried("the deletion of an answer", () => client.rest.delete(Routes.channelMessage(place.channel, answer.messageId)));
    },
    async linkTo(at, clicked) {
      const place = placeOf(at.origin);
      return place ? `https://discord.com/channels/${place.guild ?? "@me"}/${place.channel}/${clicked.messageId}` : undefined;
    },
  };
}
