// The Discord surface: a discord.js client with only the intents the features need, the
// persistent handlers (slash commands, approval buttons, mentions and DMs) and the chat
// tools. Work runs after each event is acknowledged; stop() lets it finish (bounded) and
// destroys the client.
import { once } from "node:events";
import {
  Client,
  DiscordjsError,
  DiscordjsErrorCodes,
  Events,
  GatewayIntentBits,
  MessageFlags,
  Partials,
  REST,
  type Interaction,
} from "discord.js";
import type { AgentService } from "../../runs/service.js";
import type { GovernanceCommands } from "../../governance/governance.js";
import type { Config } from "../../config.js";
import { ConfigError } from "../../errors.js";
import type { Logger } from "../../logger.js";
import type { KeyValueStore } from "../../memory/types.js";
import type { ChatAdapter } from "../core/adapter.js";
import { within } from "../../runs/within.js";
import { createInFlight } from "../core/in-flight.js";
import { isApprovalCustomId } from "./approval-buttons.js";
import { handleApprovalClick } from "./approval-clicks.js";
import { showExpiry } from "./approval-expiry.js";
import { createApprovalMessages } from "./approval-messages.js";
import { createChannelApi } from "./channel-api.js";
import { createDiscordTools } from "./chat-tools.js";
import { handleMention, isForBot } from "./mentions.js";
import { discordPresenter } from "./run-presenter.js";
import { NO_PINGS } from "./messages.js";
import type { AdapterContext } from "./run-view.js";
import { handleSlashCommand } from "./slash-commands.js";
import { handleStopClick, isStopCustomId } from "./stop-button.js";
import { handleFeedbackClick, isFeedbackCustomId } from "./feedback.js";

export interface DiscordAdapterDeps {
  readonly config: NonNullable<Config["discord"]>;
  readonly service: AgentService;
  readonly store: KeyValueStore;
  readonly logger: Logger;
  /** The settings file's `/audit` and `/settings`. */
  readonly governance?: GovernanceCommands;
  /** Ask for the privileged Message Content intent (enable it in the Developer Portal first). Mentions, DMs and commands work without it. */
  readonly messageContent?: boolean;
  readonly clock?: () => number;
  /** Progress edits of one reply are at least this far apart. */
  readonly progressIntervalMs?: number;
  /** The most stop() takes: work in flight gets all of it but the last second, which is for disconnecting. */
  readonly stopGraceMs?: number;
  /** False for BOT_ROLE=worker: it posts and presents runs over REST, but opens no gateway (clicks and commands go to ingress processes); default true. */
  readonly takeEvents?: boolean;
  /** The gateway connection went down or came back (readiness). Must not throw. */
  readonly onConnection?: (state: "up" | "down", reason?: string) => void;
}

const DESTROY_TIMEOUT_MS = 1_000;
const DEFAULT_STOP_GRACE_MS = 6_000;

const RESTARTING_CLICK_TEXT = "I am restarting; click again in a moment.";
const RESTARTING_COMMAND_TEXT = "I am restarting; ask again in a moment.";

export function createDiscordAdapter(deps: DiscordAdapterDeps): ChatAdapter {
  const { config, service, logger } = deps;
  const clock = deps.clock ?? Date.now;
  const client = new Client({
    intents: [
      GatewayIntentBits.Guilds,
      GatewayIntentBits.GuildMessages,
      GatewayIntentBits.DirectMessages,
      ...(deps.messageContent ? [GatewayIntentBits.MessageContent] : []),
    ],
    // DMs arrive in channels the cache has never seen.
    partials: [Partials.Channel],
    allowedMentions: NO_PINGS,
    ...(config.apiUrl ? { rest: { api: config.apiUrl } } : {}),
  });
  // Set before login, so an expiry noticed early can already post.
  client.rest.setToken(config.token);
  /** Writes a person approved run at most once: @discordjs/rest would repeat a request that got a 5xx. Rate limits (not processed) are still waited out. */
  const writeRest = new REST({ retries: 0, ...(config.apiUrl ? { api: config.apiUrl } : {}) }).setToken(config.token);
  const context: AdapterContext = {
    service,
    api: createChannelApi(client.rest),
    approvals: createApprovalMessages(deps.store, logger, clock),
    deciders: { approvers: config.approvers, ...(config.approverRole ? { approverRole: config.approverRole } : {}) },
    logger,
    clock,
    progressIntervalMs: deps.progressIntervalMs ?? 1_000,
    ...(deps.governance ? { governance: deps.governance } : {}),
  };
  const inFlight = createInFlight(logger);
  let accepting = false;

  /** While not accepting (starting or stopping), a click or command still gets an answer: come back shortly. */
  const answerRestarting = (interaction: Interaction): void => {
    const content = interaction.isButton() ? RESTARTING_CLICK_TEXT : interaction.isChatInputCommand() ? RESTARTING_COMMAND_TEXT : undefined;
    if (content === undefined || !interaction.isRepliable()) return;
    inFlight.track(
      "discord: answering an interaction while restarting",
      interaction.reply({ content, flags: MessageFlags.Ephemeral, allowedMentions: NO_PINGS }),
    );
  };

  service.registerSurfaceTools("discord", createDiscordTools(client, writeRest));
  service.registerPresenter("discord", discordPresenter(context, client.rest));
  service.onApprovalExpired("discord", (pending, outcome) =>
    inFlight.track("discord: showing an expired approval", showExpiry(context, pending, outcome)),
  );

  client.on(Events.InteractionCreate, (interaction) => {
    if (!accepting) return answerRestarting(interaction);
    if (interaction.isChatInputCommand()) inFlight.track(`discord: /${interaction.commandName}`, handleSlashCommand(context, interaction));
    else if (interaction.isButton() && isApprovalCustomId(interaction.customId))
      inFlight.track("discord: an approval click", handleApprovalClick(context, interaction));
    else if (interaction.isButton() && isStopCustomId(interaction.customId))
      inFlight.track("discord: a Stop click", handleStopClick(context, interaction));
    else if (interaction.isButton() && isFeedbackCustomId(interaction.customId))
      inFlight.track("discord: a feedback click", handleFeedbackClick(context, interaction));
  });
  client.on(Events.MessageCreate, (message) => {
    const botId = client.user?.id;
    // Also while stopping (the gateway is open until the drain ends): the mention is recorded, and the next start answers it; Discord never sends it again.
    if (!botId || !isForBot(message, botId)) return;
    inFlight.track("discord: a mention", handleMention(context, message, botId));
  });
  client.on(Events.Error, (error) => logger.error({ err: error }, "discord client error"));
  client.on(Events.ShardError, (error) => logger.warn({ err: error }, "discord gateway connection error; discord.js reconnects"));
  client.on(Events.ShardDisconnect, (event) => deps.onConnection?.("down", `the gateway closed the connection (${event.code})`));
  client.on(Events.ShardReconnecting, () => deps.onConnection?.("down", "reconnecting to the gateway"));
  client.on(Events.ShardResume, () => deps.onConnection?.("up"));
  client.on(Events.ShardReady, () => deps.onConnection?.("up"));

  return {
    name: "discord",
    async start() {
      if (deps.takeEvents === false) {
        accepting = true;
        logger.info("discord adapter ready (REST only: a worker opens no gateway)");
        return;
      }
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
      accepting = true;
      logger.info({ bot: client.user?.tag, guilds: client.guilds.cache.size }, "discord adapter connected");
    },
    async stop() {
      accepting = false;
      const grace = deps.stopGraceMs ?? DEFAULT_STOP_GRACE_MS;
      const finished = await inFlight.drain(Math.max(0, grace - DESTROY_TIMEOUT_MS));
      if (!finished) logger.warn({ inFlight: inFlight.size }, "stopped while Discord work was still running");
      if (!(await within(client.destroy(), Math.min(grace, DESTROY_TIMEOUT_MS))))
        logger.warn("the Discord client did not disconnect in time");
    },
  };
}
