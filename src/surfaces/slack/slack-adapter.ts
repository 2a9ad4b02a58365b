// The Slack surface: a Bolt app in Socket Mode (app token) or HTTP mode (signing secret,
// /slack/events and GET /healthz on PORT), under the core. Its events are parsed here and
// handed to the core's flows; a message is acknowledged once the core has recorded and queued
// it. Everything the core asks to show goes out through the Web API client.
import type { RequestListener, Server } from "node:http";
import type { AddressInfo } from "node:net";
import { App, HTTPReceiver, SocketModeReceiver, webApi } from "@slack/bolt";
import { z } from "zod";
import type { Config } from "../../config.js";
import { ConfigError } from "../../errors.js";
import type { Logger } from "../../logger.js";
import type { HttpMount } from "../../ops/ops-server.js";
import type { TokenCounter } from "../../tokens/token-counter.js";
import { within } from "../../runs/within.js";
import type { SurfaceCore } from "../core/inbound.js";
import type { ChatSurface } from "../core/surface.js";
import { settledUpdate } from "./approval-message.js";
import { boltLogger } from "./bolt-logger.js";
import { SLACK_EVENTS_ENDPOINT } from "./events-endpoint.js";
import { createSlackTools } from "./chat-tools.js";
import { FEEDBACK_MODAL, openCommentForm, parseComment } from "./feedback-buttons.js";
import { classifyMessage, type EntryPoint } from "./incoming-message.js";
import { answerUntaken, isNotRecorded } from "./untaken-requests.js";
import { rejectStale } from "./request-freshness.js";
import { slackErrorCode } from "./slack-api.js";
import { directMessage, post, whisper } from "./slack-posts.js";
import { BUTTON_ACTIONS, takeClick, type SlackClicked } from "./slack-clicks.js";
import { createSlackDisplay, type MessageRef } from "./slack-display.js";
import { placeOf, upgradeOrigin } from "./slack-place.js";
import { slackFormat } from "./slack-text.js";
import { ackEventsAfterListeners } from "./socket-ack.js";
import { DEFAULT_STREAM_LIMITS, type StreamLimits } from "./stream-trace.js";
import { slackContextLoader } from "./thread-context.js";

export type SlackConfig = NonNullable<Config["slack"]>;

export interface SlackSurfaceDeps {
  readonly config: SlackConfig;
  readonly logger: Logger;
  /** The model's: a thread's context is measured in the tokens of the model it goes to, and no other encoding's tables are built. */
  readonly counter: TokenCounter;
  readonly now?: () => number;
  /** When a streamed trace moves on to a new message; tests shorten them. */
  readonly streamLimits?: StreamLimits;
  /** HTTP mode: take requests on the process's ops port (PORT, opened before Slack loads, SLACK_EVENTS_ENDPOINT reserved on it) instead of a server of Bolt's own. */
  readonly httpMount?: HttpMount;
  /** False for BOT_ROLE=worker: it posts and presents runs through the Web API, but takes no events (no route, no socket); default true. */
  readonly takeEvents?: boolean;
  /** Socket Mode: the connection went down or came back (readiness). Must not throw. */
  readonly onConnection?: (state: "up" | "down", reason?: string) => void;
}

export interface SlackSurface extends ChatSurface<SlackClicked, MessageRef> {
  /** HTTP mode, once started: the port listening (useful with PORT=0). */
  readonly port: number | undefined;
}

/** Rate limits wait out Retry-After; network and HTTP errors back off briefly, a few times. */
const RETRY_POLICY = { retries: 5, factor: 2, minTimeout: 200, maxTimeout: 5_000, randomize: true };
/** Writes a person approved run at most once: a request that failed on the way may still have posted. */
const NO_RETRIES = { retries: 0 };
const PORT_CLOSE_MS = 1_000;
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

export function createSlackSurface(deps: SlackSurfaceDeps): SlackSurface {
  const { config } = deps;
  const logger = deps.logger.child({ surface: "slack" });
  const slackLogger = boltLogger(logger);
  const clientOptions = { slackApiUrl: config.apiUrl, retryConfig: RETRY_POLICY, logger: slackLogger };
  const client = new webApi.WebClient(config.botToken, clientOptions);
  const writeClient = new webApi.WebClient(config.botToken, { ...clientOptions, retryConfig: NO_RETRIES, rejectRateLimitedCalls: true });
  const now = deps.now ?? Date.now;
  let accepting = false;
  let botUserId: string | undefined;
  let app: App | undefined;
  let socket: SocketModeReceiver | undefined;
  let server: Server | undefined;
  let httpListener: RequestListener | undefined;

  function buildApp(identity: { botUserId?: string; botId?: string }): App {
    // No conversation store: state lives in our own store, not in Bolt's memory.
    const common = {
      token: config.botToken,
      clientOptions,
      logger: slackLogger,
      tokenVerificationEnabled: false,
      convoStore: false as const,
      ...identity,
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
      return socketApp;
    }
    const receiver = new HTTPReceiver({
      signingSecret: config.mode.signingSecret,
      endpoints: SLACK_EVENTS_ENDPOINT.path,
      // Slack hears "ok" only once the message is recorded and queued: an acked event is never redelivered.
      processBeforeResponse: true,
      processEventErrorHandler: answerUntaken(logger),
      bodyLimit: SLACK_EVENTS_ENDPOINT.maxBodyBytes,
      port: config.mode.port,
      logger: slackLogger,
      customRoutes: [
        {
          path: "/healthz",
          method: ["GET"],
          handler: (_request, response) => {
            response.writeHead(accepting ? 200 : 503, { "Content-Type": "application/json" });
            response.end(JSON.stringify({ ok: accepting }));
          },
        },
      ],
    });
    receiver.requestListener = rejectStale(receiver.requestListener, now);
    httpListener = receiver.requestListener;
    return new App({ ...common, receiver });
  }

  /** The ack waits for the record (processBeforeResponse, deferred Socket Mode acks); the rest comes after it. */
  async function takeMessage(core: SurfaceCore<SlackClicked>, entry: EntryPoint, body: unknown, fallbackTeam?: string): Promise<void> {
    const incoming = classifyMessage(entry, body, botUserId, fallbackTeam);
    if (incoming.kind === "ignore") return void logger.debug({ entry, reason: incoming.reason }, "event ignored");
    await core.message(incoming.message);
  }

  function listen(bolt: App, core: SurfaceCore<SlackClicked>): void {
    bolt.error(async (error) => {
      // A message not recorded goes on to the receiver, which does not acknowledge it (untaken-requests.ts).
      if (isNotRecorded(error)) throw error;
      logger.error({ err: error }, "Slack event handling failed");
    });
    bolt.event("app_mention", ({ body, context }) => takeMessage(core, "mention", body, context.teamId));
    bolt.message(({ body, context }) => takeMessage(core, "direct", body, context.teamId));
    for (const action of BUTTON_ACTIONS) {
      bolt.action(action, async ({ ack, body }) => {
        await ack();
        void takeClick(core, action, body, () => logger.warn({ action }, "ignored a malformed button click"));
      });
    }
    bolt.view(FEEDBACK_MODAL, async ({ ack, body }) => {
      await ack();
      const submitted = parseComment(body);
      if (!submitted) return void logger.warn("ignored a malformed feedback comment");
      void core.comment(submitted.runId, { id: submitted.user }, submitted.text);
    });
  }

  /** The port closes once open requests are answered; a client that holds on past the bound is cut off. */
  async function closeTransport(): Promise<void> {
    if (socket) {
      if (!(await within(socket.client.disconnect(), SOCKET_CLOSE_MS)))
        logger.warn("Socket Mode did not say goodbye in time; closing anyway");
      return;
    }
    if (deps.httpMount) return deps.httpMount.unmount();
    const closing = app?.stop() ?? Promise.resolve();
    server?.closeIdleConnections();
    if (!(await within(closing, PORT_CLOSE_MS))) return void server?.closeAllConnections();
    // Settled: a failure to close goes to stopIntake(), which logs it and cuts the connections.
    await closing;
  }

  const noteTarget = (place: NonNullable<ReturnType<typeof placeOf>>) => ({
    channel: place.channel,
    ...(place.replyThreadTs ? { threadTs: place.replyThreadTs } : {}),
  });

  return {
    name: "slack",
    redelivers: true,
    format: slackFormat,
    linkStyle: "slack",
    askHint: "write your question after the mention, for example: what can you do?",
    tools: createSlackTools(client, writeClient),
    loadContext: slackContextLoader(client, () => botUserId, deps.counter, logger),
    upgrade: upgradeOrigin,
    refs: { keyPrefix: "slack:approval", schema: z.object({ channel: z.string().min(1), ts: z.string().min(1) }) },
    get port() {
      const address = server?.address();
      return address && typeof address === "object" ? (address as AddressInfo).port : undefined;
    },

    async start(core) {
      const identity = await whoAmI(client);
      botUserId = identity.botUserId;
      accepting = true;
      if (deps.takeEvents === false)
        return void logger.info({ mode: "worker" }, "Slack is connected (Web API only: a worker takes no events)");
      app = buildApp(identity);
      listen(app, core);
      if (config.mode.kind === "http" && deps.httpMount) deps.httpMount.mount(httpListener!);
      else {
        const started = await app.start();
        if (config.mode.kind === "http") server = started as Server;
      }
      logger.info({ mode: config.mode.kind, port: config.mode.kind === "http" ? this.port : undefined }, "Slack is connected");
    },
    async stopIntake() {
      accepting = false;
      try {
        await closeTransport();
      } catch (error) {
        logger.warn({ err: error }, "could not close the Slack connection cleanly");
        server?.closeAllConnections();
      }
      app = undefined;
    },
    // The Web API client holds no connection of its own.
    close: async () => {},

    display(request) {
      const place = placeOf(request.origin);
      if (!place) throw new Error("the run's origin has no Slack thread");
      return createSlackDisplay({ client, logger, streamLimits: deps.streamLimits ?? DEFAULT_STREAM_LIMITS, now }, place);
    },
    async post(at, text) {
      const place = placeOf(at.origin);
      if (!place) return false;
      return (await post(client, logger, noteTarget(place), { text }, { level: "error", message: "could not post a reply" })) !== undefined;
    },
    async whisper(at, text) {
      const place = placeOf(at.origin);
      return place ? whisper(client, logger, noteTarget(place), at.origin.requester.id, text) : false;
    },
    directMessage: (person, text) => directMessage(client, logger, person.id, text),
    async settleApproval(message, card) {
      const update = settledUpdate(message, card);
      await client.chat
        .update(update)
        .catch((error: unknown) => logger.warn({ err: error, channel: update.channel }, "could not update the approval message"));
    },
    async linkTo(_at, clicked) {
      const response = await client.chat.getPermalink({ channel: clicked.channel, message_ts: clicked.ts }).catch(() => undefined);
      return typeof response?.permalink === "string" ? response.permalink : undefined;
    },
    askComment: (runId, clicked) =>
      clicked.triggerId ? openCommentForm(client, logger, clicked.triggerId, runId) : Promise.resolve(false),
  };
}
