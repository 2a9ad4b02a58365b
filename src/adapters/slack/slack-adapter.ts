// The Slack surface: a Bolt app in Socket Mode (app token) or HTTP mode (signing secret: Bolt's
// receiver mounted at /slack/events on the process's port, PORT), under the core. Its events
// are parsed here and handed to the core's flows; a message is acknowledged once the core has
// recorded and queued it. Everything the core asks to show goes out through the Web API client of
// the place's workspace: the one SLACK_BOT_TOKEN, or (installed in several workspaces) each
// workspace's own, asked of its installation before every call (install/).
import type { RequestListener } from "node:http";
import { App, HTTPReceiver, SocketModeReceiver, webApi } from "@slack/bolt";
import { z } from "zod";
import type { Config } from "../../config.js";
import { ConfigError } from "../../errors.js";
import type { HttpMount, OpsServer } from "../../ops/ops-server.js";
import type { KeyValueStore } from "../../memory/types.js";
import type { KeyMaterial } from "../../tools/mcp/auth/sealed-box.js";
import type { TaskOrigin } from "../../contracts/types.js";
import type { TokenCounter } from "../../tokens/token-counter.js";
import { within } from "../../runs/within.js";
import { attempt } from "../core/attempt.js";
import type { SurfaceCore } from "../core/inbound.js";
import type { ChatSurface, SurfaceDeps } from "../core/surface.js";
import { settledUpdate } from "./approval-message.js";
import { boltLogger } from "./bolt-logger.js";
import { SLACK_EVENTS_ENDPOINT } from "./events-endpoint.js";
import { createSlackTools } from "./chat-tools.js";
import { FEEDBACK_MODAL, openCommentForm, parseComment } from "./feedback-buttons.js";
import { listenForForms, openFormModal } from "./slack-forms.js";
import { listenForHeldAnswers, postHeldPreview } from "./held-message.js";
import { slackAudiences } from "./channel-audience.js";
import { LINK_ACTION } from "./link-button.js";
import { classifyMessage, type EntryPoint } from "./incoming-message.js";
import { changeOf, takeChange } from "./message-changes.js";
import { deleteRunMessages } from "./deleted-answers.js";
import { viewingOf } from "./app-context.js";
import { answerUntaken, isNotRecorded } from "./untaken-requests.js";
import { rejectStale } from "./request-freshness.js";
import { slackErrorCode } from "./slack-api.js";
import { createSlackPosts } from "./slack-posts.js";
import { BUTTON_ACTIONS, takeClick } from "./slack-clicks.js";
import { createSlackDisplay } from "./slack-display.js";
import type { MessageRef, SlackClicked } from "./slack-refs.js";
import { placeOf, upgradeOrigin, type ThreadPlace } from "./slack-place.js";
import { createSlackSchedulePorts } from "./slack-schedules.js";
import { slackFormat } from "./slack-text.js";
import { ackEventsAfterListeners } from "./socket-ack.js";
import { DEFAULT_STREAM_LIMITS, type StreamLimits } from "./stream-trace.js";
import { slackContextLoader } from "./thread-context.js";
import { createSlackFiles } from "./slack-files.js";
import { type ClientOptions, singleWorkspaceClients, type SlackClients } from "./slack-clients.js";
import type { RefreshTiming } from "./install/bot-tokens.js";
import { SLACK_INSTALL_PATH, SLACK_REDIRECT_PATH } from "./install/install-routes.js";
import { openSlackInstalls, type SlackInstalls } from "./install/slack-installs.js";
import { refOfContext, type WorkspaceRef } from "./install/workspace-ref.js";
import { workspaceOf, workspaceOfOrigin } from "./slack-place.js";
import type { SlackRemoval } from "./install/removal-events.js";
import { createOrgWorkspaces } from "./install/org-workspaces.js";
import { listenForRemoval } from "./install/removal-listener.js";
import { createWorkspaceAdmins } from "./install/workspace-admins.js";

export type SlackConfig = NonNullable<Config["slack"]>;

export interface SlackSurfaceDeps extends SurfaceDeps {
  readonly config: SlackConfig;
  /** The model's: a thread's context is measured in the tokens of the model it goes to, and no other encoding's tables are built. */
  readonly counter: TokenCounter;
  readonly now?: () => number;
  /** When a streamed trace moves on to a new message; tests shorten them. */
  readonly streamLimits?: StreamLimits;
  /** HTTP mode: where requests arrive, the process's port (PORT, opened before Slack loads, SLACK_EVENTS_ENDPOINT reserved on it). */
  readonly httpMount?: HttpMount;
  /** Installed in several workspaces (SLACK_CLIENT_ID): needed then, unused with SLACK_BOT_TOKEN. */
  readonly installs?: SlackInstallDeps;
}

export interface SlackInstallDeps {
  /** Where the installations are kept (sealed). */
  readonly store: KeyValueStore;
  /** The approval key's material, kept outside the store. */
  readonly sealingKey: KeyMaterial;
  /** The process's port: the install pages are served there (not in a worker, which takes no events). */
  readonly pages?: Pick<OpsServer, "mountPrefix">;
  /** A workspace (or an org) uninstalled the app or revoked its bot token, and its installation is deleted: the rest of it goes. Must not throw. */
  readonly removed?: (removal: SlackRemoval) => Promise<void>;
  /** A workspace (or an org) installed the app, under its installation's key (`T:…`, `E:…`). Must not throw. */
  readonly installed?: (key: string) => Promise<void>;
  readonly timing?: Partial<RefreshTiming>;
}

export type SlackSurface = ChatSurface<SlackClicked, MessageRef>;

/** Rate limits wait out Retry-After; network and HTTP errors back off briefly, a few times. */
const RETRY_POLICY = { retries: 5, factor: 2, minTimeout: 200, maxTimeout: 5_000, randomize: true };
/** Writes a person approved run at most once: a request that failed on the way may still have posted. */
const NO_RETRIES = { retries: 0 };
/**
 * The start's one question (auth.test): two quick retries, not the run-time policy's five over ~9 s, each
 * logged as a warning, before the start's one line; a process manager's restart is the longer retry.
 */
const START_RETRY_POLICY = { retries: 2, factor: 2, minTimeout: 200, maxTimeout: 1_000, randomize: true };
/** Socket Mode's disconnect() can wait 30 s for a goodbye; shutdown does not. */
const SOCKET_CLOSE_MS = 1_000;
const BAD_TOKEN_ERRORS = new Set(["invalid_auth", "not_authed", "account_inactive", "token_revoked", "token_expired"]);
async function whoAmI(client: webApi.WebClient): Promise<{ botUserId?: string; botId?: string }> {
  try {
    const auth = await client.auth.test();
    return { botUserId: auth.user_id, botId: auth.bot_id };
  } catch (error) {
    const code = slackErrorCode(error);
    if (code && BAD_TOKEN_ERRORS.has(code)) {
      throw new ConfigError("SLACK_BOT_TOKEN", `is not accepted by Slack (${code}); copy the Bot User OAuth Token again`, "<hidden>");
    }
    throw error;
  }
}

/** Bolt's context of an event, as far as the surface reads it. */
interface EventContext {
  readonly teamId?: string;
  readonly enterpriseId?: string;
  readonly isEnterpriseInstall?: boolean;
  readonly botUserId?: string;
}

/** A place that names no workspace: with installs its calls fail (no installation), with one token it is that token's. */
const NO_WORKSPACE: WorkspaceRef = { orgInstall: false };

const tokenOfConfig = (config: SlackConfig): string => {
  if (config.auth.kind !== "token") throw new Error("Slack is set up for installs, not for one token");
  return config.auth.botToken;
};

/** A stored approval message's workspace (references stored with one token name none). */
const refWorkspace = (ref: MessageRef): WorkspaceRef =>
  workspaceOf({
    team: ref.team ?? "",
    ...(ref.enterprise ? { enterprise: ref.enterprise } : {}),
    ...(ref.orgInstall ? { orgInstall: ref.orgInstall } : {}),
  });

function openInstalls(
  deps: SlackSurfaceDeps,
  options: ClientOptions,
  slackLogger: ReturnType<typeof boltLogger>,
): SlackInstalls | undefined {
  const { auth, apiUrl } = deps.config;
  if (auth.kind === "token") return undefined;
  if (!deps.installs) throw new Error("Slack installs need the store and the sealing key, and none were given");
  return openSlackInstalls(
    { clientId: auth.clientId, clientSecret: auth.clientSecret, publicUrl: auth.publicUrl, ...(apiUrl ? { apiUrl } : {}) },
    {
      store: deps.installs.store,
      sealingKey: deps.installs.sealingKey,
      logger: deps.logger.child({ surface: "slack" }),
      slackLogger,
      clientOptions: options,
      ...(deps.now ? { clock: deps.now } : {}),
      ...(deps.installs.timing ? { timing: deps.installs.timing } : {}),
      ...(deps.installs.installed ? { installed: deps.installs.installed } : {}),
    },
  );
}

export function createSlackSurface(deps: SlackSurfaceDeps): SlackSurface {
  const { config } = deps;
  const logger = deps.logger.child({ surface: "slack" });
  const slackLogger = boltLogger(logger);
  const clientOptions = { slackApiUrl: config.apiUrl, retryConfig: RETRY_POLICY, logger: slackLogger };
  const options: ClientOptions = {
    reads: clientOptions,
    writes: { ...clientOptions, retryConfig: NO_RETRIES, rejectRateLimitedCalls: true },
  };
  const installs = openInstalls(deps, options, slackLogger);
  const orgs = installs && deps.installs ? createOrgWorkspaces(deps.installs.store) : undefined;
  const clients: SlackClients = installs?.clients ?? singleWorkspaceClients(tokenOfConfig(config), options);
  const now = deps.now ?? Date.now;
  /** With SLACK_BOT_TOKEN: the bot's user id (auth.test at start). With installs each event's context names its workspace's. */
  let botUserId: string | undefined;
  let socket: SocketModeReceiver | undefined;

  const clientAt = (origin: TaskOrigin) => clients.of(workspaceOfOrigin(origin) ?? NO_WORKSPACE);
  /** Installed in several workspaces: each one's admins and owners are its admins where the settings name none. */
  const admins = installs ? createWorkspaceAdmins(clientAt, logger, now) : undefined;
  const postsAt = (origin: TaskOrigin) => createSlackPosts(clientAt(origin), logger);
  const botUserIdAt = async (origin: TaskOrigin) => {
    const workspace = workspaceOfOrigin(origin);
    if (!installs || !workspace) return botUserId;
    return (await installs.tokens.credentialsOf(workspace).catch(() => undefined))?.botUserId;
  };
  /** A clicked message's workspace: Bolt's context of the click, or the workspace of the place it was asked in. */
  const clickedClient = (clicked: SlackClicked, at?: TaskOrigin) =>
    clients.of(clicked.workspace ?? (at ? workspaceOfOrigin(at) : undefined) ?? NO_WORKSPACE);

  /** The app, and in HTTP mode the request listener to mount on the process's port once the listeners are in place. */
  function buildApp(identity: { botUserId?: string; botId?: string }): { bolt: App; requests?: RequestListener } {
    // No conversation store: state lives in our own store, not in Bolt's memory. One token, or each workspace's.
    const common = {
      ...(installs ? { authorize: installs.authorize } : { token: tokenOfConfig(config), tokenVerificationEnabled: false, ...identity }),
      clientOptions,
      logger: slackLogger,
      convoStore: false as const,
    };
    if (config.mode.kind === "socket") {
      socket = new SocketModeReceiver({
        appToken: config.mode.appToken,
        logger: slackLogger,
        installerOptions: { clientOptions: { ...clientOptions } },
      });
      socket.client.on("disconnected", () => deps.onConnection?.("down", "the Socket Mode connection closed"));
      socket.client.on("reconnecting", () => deps.onConnection?.("down", "reconnecting to Socket Mode"));
      socket.client.on("connected", () => deps.onConnection?.("up"));
      const socketApp = new App({ ...common, receiver: socket });
      ackEventsAfterListeners(socket, socketApp, logger);
      return { bolt: socketApp };
    }
    // Bolt's receiver without a server of its own: the process's port hands it the requests.
    const receiver = new HTTPReceiver({
      signingSecret: config.mode.signingSecret,
      endpoints: SLACK_EVENTS_ENDPOINT.path,
      // Slack hears "ok" only once the message is recorded and queued: an acked event is never redelivered.
      processBeforeResponse: true,
      processEventErrorHandler: answerUntaken(logger),
      bodyLimit: SLACK_EVENTS_ENDPOINT.maxBodyBytes,
      logger: slackLogger,
    });
    return { bolt: new App({ ...common, receiver }), requests: rejectStale(receiver.requestListener, now) };
  }

  /** The ack waits for the record (processBeforeResponse, deferred Socket Mode acks); the rest comes after it. */
  async function takeMessage(core: SurfaceCore<SlackClicked>, entry: EntryPoint, body: unknown, context: EventContext): Promise<void> {
    const workspace = refOfContext(context);
    const bot = context.botUserId ?? botUserId;
    const change = entry === "direct" ? changeOf(body, bot, context.teamId, workspace) : undefined;
    if (change) return takeChange(core, change, logger);
    const incoming = classifyMessage(entry, body, bot, context.teamId, workspace);
    if (incoming.kind === "ignore") return void logger.debug({ entry, reason: incoming.reason }, "event ignored");
    const message = admins ? { ...incoming.message, at: await admins.mark(incoming.message.at) } : incoming.message;
    await (incoming.kind === "follow_up" ? core.followUp(message) : core.message(message));
    // A workspace of an org-wide install goes with the org when it uninstalls.
    if (orgs && context.isEnterpriseInstall && context.enterpriseId && context.teamId)
      void orgs
        .note(context.enterpriseId, context.teamId)
        .catch((error: unknown) => logger.warn({ err: error }, "could not note a workspace of an org-wide install"));
  }

  function listen(bolt: App, core: SurfaceCore<SlackClicked>): void {
    bolt.error(async (error) => {
      // A message not recorded goes on to the receiver, which does not acknowledge it (untaken-requests.ts).
      if (isNotRecorded(error)) throw error;
      logger.error({ err: error }, "Slack event handling failed");
    });
    bolt.event("app_mention", ({ body, context }) => takeMessage(core, "mention", body, context));
    bolt.message(({ body, context }) => takeMessage(core, "direct", body, context));
    bolt.event("app_context_changed", async ({ body, context }) => {
      const viewing = viewingOf(body, context.teamId);
      if (viewing) await core.viewing(viewing);
    });
    for (const action of BUTTON_ACTIONS) {
      bolt.action(action, async ({ ack, body, context }) => {
        await ack();
        const ignored = () => logger.warn({ action }, "ignored a malformed button click");
        void takeClick(core, action, body, ignored, refOfContext(context), admins ? (at) => admins.mark(at) : undefined);
      });
    }
    if (installs && orgs)
      listenForRemoval(bolt, { installs, orgs, logger, ...(deps.installs?.removed ? { removed: deps.installs.removed } : {}) });
    bolt.view(FEEDBACK_MODAL, async ({ ack, body }) => {
      await ack();
      const submitted = parseComment(body);
      if (!submitted) return void logger.warn("ignored a malformed feedback comment");
      void core.comment(submitted.runId, { id: submitted.user }, submitted.text);
    });
    // A link button's click: the browser opened the link; the app only acks it.
    bolt.action(LINK_ACTION, async ({ ack }) => {
      await ack();
    });
    listenForForms(bolt, core, logger);
    listenForHeldAnswers(bolt, core, logger);
  }

  /** Socket Mode says goodbye (bounded); HTTP mode's requests get 503 from the port from now on, which Slack retries. */
  async function closeTransport(): Promise<void> {
    if (!socket) return deps.httpMount?.unmount();
    if (!(await within(socket.client.disconnect(), SOCKET_CLOSE_MS)))
      logger.warn("Socket Mode did not say goodbye in time; closing anyway");
  }

  const noteTarget = (place: ThreadPlace) => ({ channel: place.channel, threadTs: place.replyThreadTs });

  return {
    name: "slack",
    redelivers: true,
    format: slackFormat,
    linkStyle: "slack",
    ...(installs ? { manyWorkspaces: true } : {}),
    askHint: "write your question after the mention, for example: what can you do?",
    tools: createSlackTools(clients),
    loadContext: slackContextLoader(clientAt, botUserIdAt, deps.counter, logger),
    files: createSlackFiles({
      clientOf: clientAt,
      tokenOf: (origin) => clients.tokenOf(workspaceOfOrigin(origin) ?? NO_WORKSPACE),
      ...(config.apiUrl ? { apiUrl: config.apiUrl } : {}),
      logger,
    }),
    upgrade: upgradeOrigin,
    refs: {
      keyPrefix: "slack:approval",
      schema: z.object({
        channel: z.string().min(1),
        ts: z.string().min(1),
        team: z.string().min(1).optional(),
        enterprise: z.string().min(1).optional(),
        orgInstall: z.literal(true).optional(),
      }),
    },

    async start(core) {
      // One workspace: its token is checked now. Installs: each workspace's is asked when it is used.
      const identity =
        config.auth.kind === "token"
          ? await whoAmI(
              new webApi.WebClient(config.auth.botToken, {
                ...clientOptions,
                retryConfig: START_RETRY_POLICY,
                logger: boltLogger(logger, { quietWarnings: true }),
              }),
            )
          : {};
      botUserId = identity.botUserId;
      if (deps.takeEvents === false)
        return void logger.info({ mode: "worker" }, "Slack is connected (Web API only: a worker takes no events)");
      if (installs && deps.installs?.pages) {
        deps.installs.pages.mountPrefix(SLACK_INSTALL_PATH, installs.pages);
        deps.installs.pages.mountPrefix(SLACK_REDIRECT_PATH, installs.pages);
      }
      const { bolt, requests } = buildApp(identity);
      listen(bolt, core);
      if (!requests) await bolt.start();
      else if (deps.httpMount) deps.httpMount.mount(requests);
      else throw new Error("Slack's HTTP mode takes its requests on the process's port, and none was given");
      logger.info({ mode: config.mode.kind }, "Slack is connected");
    },
    async stopIntake() {
      try {
        await closeTransport();
      } catch (error) {
        // Socket Mode's disconnect() emits to listeners before it returns its promise.
        logger.warn({ err: error }, "could not close the Slack connection cleanly");
      }
    },
    // The Web API client holds no connection of its own.
    close: async () => {},

    display(request) {
      const place = placeOf(request.origin);
      if (!place) throw new Error("the run's origin has no Slack thread");
      const client = clients.of(workspaceOf(place));
      const posts = createSlackPosts(client, logger);
      return createSlackDisplay({ client, posts, logger, streamLimits: deps.streamLimits ?? DEFAULT_STREAM_LIMITS, now }, place);
    },
    async post(at, text) {
      const place = placeOf(at.origin);
      if (!place) return false;
      const posted = await postsAt(at.origin).post(noteTarget(place), { text }, { level: "error", message: "could not post a reply" });
      return posted !== undefined;
    },
    async whisper(at, text, link) {
      const place = placeOf(at.origin);
      return place ? postsAt(at.origin).whisper(noteTarget(place), at.origin.requester.id, text, link) : false;
    },
    directMessage: (person, text, where, link) => postsAt(where).directMessage(person.id, text, link),
    audiences: slackAudiences(clients),
    async offerHeld(origin, preview, runId) {
      const place = placeOf(origin);
      return place ? postHeldPreview(clientAt(origin), logger, place, origin.requester.id, preview, runId) : false;
    },
    ...createSlackSchedulePorts(clientAt, postsAt, logger),
    async settleApproval(message, card) {
      const update = settledUpdate(message, card);
      const client = "clicked" in message ? clickedClient(message.clicked) : clients.of(refWorkspace(message.ref));
      const failure = { level: "warn", message: "could not update the approval message", fields: { channel: update.channel } } as const;
      await attempt(logger, failure, () => client.chat.update(update));
    },
    async linkTo(at, clicked) {
      const response = await clickedClient(clicked, at.origin)
        .chat.getPermalink({ channel: clicked.channel, message_ts: clicked.ts })
        .catch(() => undefined);
      return typeof response?.permalink === "string" ? response.permalink : undefined;
    },
    deleteAnswer: deleteRunMessages(clientAt, logger),
    openForm: (clicked, form) => openFormModal(clickedClient(clicked), logger, clicked, form),
    askComment: (runId, clicked) =>
      clicked.triggerId ? openCommentForm(clickedClient(clicked), logger, clicked.triggerId, runId) : Promise.resolve(false),
  };
}
