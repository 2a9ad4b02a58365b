// The Slack surface: a Bolt app in Socket Mode (app token) or HTTP mode (signing secret,
// /slack/events and GET /healthz on PORT). A message is acknowledged once it is recorded and
// queued; replies and clicks' work run after the ack and are tracked so stop() can let them reach a safe point.
import type { RequestListener, Server } from "node:http";
import type { AddressInfo } from "node:net";
import { App, HTTPReceiver, SocketModeReceiver, webApi } from "@slack/bolt";
import type { AgentService } from "../../runs/service.js";
import type { GovernanceCommands } from "../../governance/governance.js";
import type { Config } from "../../config.js";
import { ConfigError } from "../../errors.js";
import type { KeyValueStore } from "../../memory/types.js";
import type { Logger } from "../../logger.js";
import type { HttpMount } from "../../ops/ops-server.js";
import type { ChatAdapter } from "../adapter.js";
import { within } from "../../runs/within.js";
import { createInFlight } from "../in-flight.js";
import { APPROVE_ACTION, DENY_ACTION } from "./approval-message.js";
import { boltLogger } from "./bolt-logger.js";
import { SLACK_EVENTS_ENDPOINT } from "./events-endpoint.js";
import { createSlackTools } from "./chat-tools.js";
import { slackRefusalNote } from "./governance-replies.js";
import { handleApprovalClick, handleApprovalExpired } from "./handle-approval.js";
import { takeMessage } from "./handle-message.js";
import { ackEventsAfterListeners } from "./socket-ack.js";
import { answerUntaken, isNotRecorded } from "./untaken-requests.js";
import { slackContextLoader } from "./thread-context-source.js";
import { slackPresenter } from "./run-presenter.js";
import { rejectStale } from "./request-freshness.js";
import { slackErrorCode } from "./slack-api-error.js";
import type { SlackRuntime } from "./slack-runtime.js";
import { handleStopClick, STOP_ACTION } from "./stop-control.js";
import {
  FEEDBACK_DOWN_ACTION,
  FEEDBACK_MODAL,
  FEEDBACK_UP_ACTION,
  handleFeedbackClick,
  handleFeedbackComment,
} from "./feedback-buttons.js";
import { DEFAULT_STREAM_LIMITS, type StreamLimits } from "./stream-limits.js";

export type SlackConfig = NonNullable<Config["slack"]>;

export interface SlackAdapterDeps {
  readonly config: SlackConfig;
  readonly service: AgentService;
  readonly store: KeyValueStore;
  readonly logger: Logger;
  /** Admin checks and the `audit` / `settings` commands (the settings file). */
  readonly governance?: GovernanceCommands;
  readonly now?: () => number;
  /** How long stop() waits for runs in flight; default 8 s (the process exits within 10 s). */
  readonly drainTimeoutMs?: number;
  /** When a streamed trace moves on to a new message; tests shorten them. */
  readonly streamLimits?: StreamLimits;
  /** HTTP mode: take requests on the process's ops port (PORT, opened before Slack loads, SLACK_EVENTS_ENDPOINT reserved on it) instead of a server of Bolt's own. */
  readonly httpMount?: HttpMount;
  /** False for BOT_ROLE=worker: it posts and presents runs through the Web API, but takes no events (no route, no socket); default true. */
  readonly takeEvents?: boolean;
  /** Socket Mode: the connection went down or came back (readiness). Must not throw. */
  readonly onConnection?: (state: "up" | "down", reason?: string) => void;
}

export interface SlackAdapter extends ChatAdapter {
  /** HTTP mode, once started: the port listening (useful with PORT=0). */
  readonly port: number | undefined;
}

/** Rate limits wait out Retry-After; network and HTTP errors back off briefly, a few times. */
const RETRY_POLICY = { retries: 5, factor: 2, minTimeout: 200, maxTimeout: 5_000, randomize: true };
/** Writes a person approved run at most once: a request that failed on the way may still have posted. */
const NO_RETRIES = { retries: 0 };
const DEFAULT_DRAIN_MS = 8_000;
const PORT_CLOSE_MS = 1_000;
/** Socket Mode's disconnect() can wait 30 s for a goodbye; shutdown does not. */
const SOCKET_CLOSE_MS = 1_000;
const BAD_TOKEN_ERRORS = new Set(["invalid_auth", "not_authed", "account_inactive", "token_revoked", "token_expired"]);

/** A message that was not recorded has nothing to do after the ack: the receiver already did what is due (no ack). */
const notRecorded = (): undefined => undefined;

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

export function createSlackAdapter(deps: SlackAdapterDeps): SlackAdapter {
  const { config, service, store } = deps;
  const logger = deps.logger.child({ surface: "slack" });
  const slackLogger = boltLogger(logger);
  const clientOptions = { slackApiUrl: config.apiUrl, retryConfig: RETRY_POLICY, logger: slackLogger };
  const client = new webApi.WebClient(config.botToken, clientOptions);
  const writeClient = new webApi.WebClient(config.botToken, { ...clientOptions, retryConfig: NO_RETRIES, rejectRateLimitedCalls: true });
  const now = deps.now ?? Date.now;
  const inFlight = createInFlight(logger);
  let accepting = false;
  let botUserId: string | undefined;
  let app: App | undefined;
  let socket: SocketModeReceiver | undefined;
  let server: Server | undefined;
  let httpListener: RequestListener | undefined;

  const runtime: SlackRuntime = {
    client,
    service,
    store,
    logger,
    approvers: config.approvers,
    ...(deps.governance ? { governance: deps.governance } : {}),
    streamLimits: deps.streamLimits ?? DEFAULT_STREAM_LIMITS,
    now,
    botUserId: () => botUserId,
    accepting: () => accepting,
  };

  service.registerSurfaceTools("slack", createSlackTools(client, writeClient));
  service.registerPresenter("slack", slackPresenter(runtime), slackRefusalNote(runtime));
  service.registerContextLoader("slack", slackContextLoader(client, runtime.botUserId, logger));
  service.onApprovalExpired("slack", (pending, outcome) =>
    inFlight.track("showing an expired Slack approval", handleApprovalExpired(runtime, pending, outcome)),
  );

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

  function listen(bolt: App): void {
    bolt.error(async (error) => {
      // A message not recorded goes on to the receiver, which does not acknowledge it (untaken-requests.ts).
      if (isNotRecorded(error)) throw error;
      logger.error({ err: error }, "Slack event handling failed");
    });
    // The ack waits for the record (processBeforeResponse, deferred Socket Mode acks); replies come after it. A
    // message that could not be recorded rejects here, and Slack is not acknowledged.
    bolt.event("app_mention", async ({ body, context }) => {
      const taken = takeMessage(runtime, "mention", body, context.teamId);
      inFlight.track(
        "a Slack mention",
        taken.then((afterAck) => afterAck?.(), notRecorded),
      );
      await taken;
    });
    bolt.message(async ({ body, context }) => {
      const taken = takeMessage(runtime, "direct", body, context.teamId);
      inFlight.track(
        "a Slack direct message",
        taken.then((afterAck) => afterAck?.(), notRecorded),
      );
      await taken;
    });
    bolt.action(APPROVE_ACTION, async ({ ack, body }) => {
      await ack();
      inFlight.track("a Slack approval click", handleApprovalClick(runtime, body, "approve"));
    });
    bolt.action(DENY_ACTION, async ({ ack, body }) => {
      await ack();
      inFlight.track("a Slack approval click", handleApprovalClick(runtime, body, "deny"));
    });
    bolt.action(STOP_ACTION, async ({ ack, body }) => {
      await ack();
      inFlight.track("a Slack Stop click", handleStopClick(runtime, body));
    });
    bolt.action(FEEDBACK_UP_ACTION, async ({ ack, body }) => {
      await ack();
      inFlight.track("a Slack feedback click", handleFeedbackClick(runtime, body, "up"));
    });
    // 👎 also opens the comment form (the click's trigger id lasts 3 s; the handler opens it before storing the vote).
    bolt.action(FEEDBACK_DOWN_ACTION, async ({ ack, body }) => {
      await ack();
      inFlight.track("a Slack feedback click", handleFeedbackClick(runtime, body, "down"));
    });
    bolt.view(FEEDBACK_MODAL, async ({ ack, body }) => {
      await ack();
      inFlight.track("a Slack feedback comment", handleFeedbackComment(runtime, body));
    });
  }

  /** The port closes once open requests are answered; a client that holds on past the bound is cut off. */
  async function closeTransport(): Promise<void> {
    if (socket) {
      if (!(await within(socket.client.disconnect(), SOCKET_CLOSE_MS)))
        logger.warn("Socket Mode did not say goodbye in time; closing anyway");
      return;
    }
    if (deps.httpMount) {
      deps.httpMount.unmount();
      return;
    }
    const closing = app?.stop() ?? Promise.resolve();
    server?.closeIdleConnections();
    if (!(await within(closing, PORT_CLOSE_MS))) {
      server?.closeAllConnections();
      return;
    }
    // Settled: a failure to close goes to stop(), which logs it and cuts the connections.
    await closing;
  }

  return {
    name: "slack",
    get port() {
      const address = server?.address();
      return address && typeof address === "object" ? (address as AddressInfo).port : undefined;
    },
    async start() {
      const identity = await whoAmI(client);
      botUserId = identity.botUserId;
      if (deps.takeEvents === false) {
        accepting = true;
        logger.info({ mode: "worker" }, "Slack is connected (Web API only: a worker takes no events)");
        return;
      }
      app = buildApp(identity);
      listen(app);
      accepting = true;
      if (config.mode.kind === "http" && deps.httpMount) deps.httpMount.mount(httpListener!);
      else {
        const started = await app.start();
        if (config.mode.kind === "http") server = started as Server;
      }
      logger.info({ mode: config.mode.kind, port: config.mode.kind === "http" ? this.port : undefined }, "Slack is connected");
    },
    async stop() {
      if (!accepting && inFlight.size === 0 && !app) return;
      accepting = false;
      try {
        await closeTransport();
      } catch (error) {
        logger.warn({ err: error }, "could not close the Slack connection cleanly");
        server?.closeAllConnections();
      }
      app = undefined;
      const finished = await inFlight.drain(deps.drainTimeoutMs ?? DEFAULT_DRAIN_MS);
      if (!finished) logger.warn({ inFlight: inFlight.size }, "stopped while Slack work was still running");
    },
  };
}
