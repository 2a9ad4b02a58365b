// Wires the process together: configuration, logs, store, model, the runner, and the surfaces
// (Slack and/or Discord, or the console when no chat tokens are set). main.ts only adds the
// process-level parts: signals, exit codes, the hard-exit backstop.
import type { Logger } from "pino";
import { attach, type AttachedSurface } from "./surfaces/core/attach.js";
import { upgradeAuditEntries } from "./surfaces/core/audit-upgrade.js";
import { createConsoleSurface } from "./surfaces/console/console-adapter.js";
import { upgradeOrigin as upgradeDiscordOrigin } from "./surfaces/discord/discord-place.js";
import { upgradeOrigin as upgradeSlackOrigin } from "./surfaces/slack/slack-place.js";
import type { ModelDescription } from "./surfaces/console/console-text.js";
import { createDemoLoopRunner } from "./surfaces/console/demo-loop.js";
import { SLACK_EVENTS_ENDPOINT } from "./surfaces/slack/events-endpoint.js";
import { warnAboutAllowedWrites } from "./agent/allowed-writes.js";
import { createAgentService, type RunningAgentService } from "./runs/agent-service.js";
import type { OriginUpgrade } from "./runs/service.js";
import { createRunRecording } from "./runs/records/run-recording.js";
import { createLoopDeps } from "./agent/loop-deps.js";
import { TokenCounter } from "./tokens/token-counter.js";
import { createDemoModel } from "./agent/model-demo.js";
import { builtinTools } from "./agent/tools/builtin.js";
import type { Model, Surface } from "./agent/types.js";
import { checkChatModel, loadConfig, type Config } from "./config.js";
import { ConfigError, StoreUnavailableError, StoreUrlError } from "./errors.js";
import { approversFrom } from "./governance/authority.js";
import { createGovernance, loadSettings, type Governance } from "./governance/governance.js";
import { createLogger } from "./logger.js";
import { prepareMcp, serverLines } from "./tools/mcp/mcp-startup.js";
import { openStore, parseStoreUrl } from "./memory/keyv-store.js";
import { claimStoreOwnership, type OwnerClaim } from "./memory/store-lease.js";
import type { KeyValueStore } from "./memory/types.js";
import type { Metrics } from "./ops/metrics.js";
import { createProcessSchedules } from "./runs/schedules/process-schedules.js";
import type { SlotMetrics } from "./runs/schedules/ports.js";
import type { Schedules } from "./runs/schedules/scheduler.js";

export interface AppIo {
  /** Console mode reads from it; defaults to process.stdin. */
  readonly input?: NodeJS.ReadableStream;
  /** Console mode writes to it; defaults to process.stdout. */
  readonly output?: NodeJS.WritableStream;
  /** Console mode's requester name; defaults to the OS user name. */
  readonly username?: string;
}

export interface RunningApp {
  readonly logger: Logger;
  /** The surfaces that started: "slack", "discord" or "console". */
  readonly surfaces: readonly string[];
  /** Where /healthz, /readyz and /metrics are served (and Slack's HTTP mode takes events); undefined for the console. */
  readonly port?: number;
  /** The run explorer's own listener (ADMIN_PORT, or PORT in console mode), when it has one. */
  readonly adminPort?: number;
  /** Resolves when the app ended by itself: the console session closed. Never resolves for Slack and Discord. */
  readonly ended: Promise<void>;
  /** Stops taking events, lets runs in flight reach a safe point (bounded), closes the runner and the store. Idempotent; never rejects. */
  stop(): Promise<void>;
}

/** `message` is the one line to print before exiting with code 1. */
export type AppStart = { readonly kind: "started"; readonly app: RunningApp } | { readonly kind: "failed"; readonly message: string };

// Shutdown fits inside main.ts's 10 s backstop, in the order that loses nothing: the surfaces stop
// taking events (ports answer 503; clicks and commands already taken get up to 6 s), then runs in
// flight get up to 8 s of what is left of 9 s to reach their next checkpoint and post, then the
// platform clients close (a Discord client destroyed earlier could not post), then the store.
const SURFACE_DRAIN_MS = 6_000;
const SHUTDOWN_BUDGET_MS = 9_000;
const MIN_RUNNER_CLOSE_MS = 250;
/** Runs in flight get this long to reach their next checkpoint; the next start continues them from it. */
const RUNNER_GRACE_MS = 8_000;
/** Each surface's place codec, which any process can load: what earlier versions stored gets its scope (and loses its secrets) through it. */
const ORIGIN_CODECS: Readonly<Partial<Record<Surface, OriginUpgrade>>> = { slack: upgradeSlackOrigin, discord: upgradeDiscordOrigin };

export async function startApp(env: NodeJS.ProcessEnv, io: AppIo = {}): Promise<AppStart> {
  let config: Config;
  try {
    config = loadConfig(env);
    checkChatModel(config);
  } catch (error) {
    if (error instanceof ConfigError) return { kind: "failed", message: `Configuration error: ${error.message}` };
    throw error;
  }
  const consoleMode = !config.slack && !config.discord;
  // Console mode shares the terminal with the conversation: only errors are logged unless LOG_LEVEL asks for more.
  const logger = createLogger(consoleMode && !env.LOG_LEVEL ? "error" : config.logLevel);
  // The settings file is checked before anything opens: each problem is one line, and the start stops.
  const settings = await loadSettings(config.settingsFile, logger);
  if (settings.kind === "failed") return { kind: "failed", message: settings.lines.join("\n") };
  // The MCP servers file is checked like the environment: one line naming the server and the field.
  const mcp = await prepareMcp(config, env, logger);
  if (mcp.kind === "failed") return { kind: "failed", message: mcp.message };

  let store: KeyValueStore;
  try {
    store = await openStore(config.storeUrl, logger);
  } catch (error) {
    if (error instanceof StoreUrlError) return { kind: "failed", message: `Configuration error: ${error.message}` };
    if (error instanceof StoreUnavailableError) return { kind: "failed", message: `Cannot start: ${error.message}. Check STORE_URL.` };
    throw error;
  }
  // One process per SQLite file: it resumes that file's unfinished work, which a second process would run again.
  const location = parseStoreUrl(config.storeUrl);
  const ownership: OwnerClaim =
    location.kind === "sqlite" ? await claimStoreOwnership(location.path, { logger }) : { kind: "owned", release: () => {} };
  if (ownership.kind === "taken") {
    await store.close();
    return { kind: "failed", message: `Cannot start: ${ownership.message}` };
  }

  // Every process but the console serves health, readiness and metrics on PORT; loaded only then (prom-client, tracing).
  const ops = consoleMode ? undefined : await (await import("./ops/ops.js")).startOps(config, store, env, logger);
  let http: Awaited<ReturnType<NonNullable<typeof ops>["listen"]>> | undefined;
  if (ops) {
    // Not ready until each surface connects. The port opens now, before the chat libraries load; Slack's HTTP mode mounts on it.
    for (const surface of [config.slack ? "slack" : undefined, config.discord ? "discord" : undefined])
      if (surface) ops.health.connection(surface, "starting");
    try {
      // Slack's endpoint answers 503 (which Slack retries) until the start is complete; a worker takes no events.
      const slackEvents = config.slack?.mode.kind === "http" && config.role !== "worker";
      http = await ops.listen(config.port, slackEvents ? [SLACK_EVENTS_ENDPOINT] : []);
    } catch (error) {
      await ops.close();
      await closeAll([], undefined, store, logger);
      ownership.release();
      return { kind: "failed", message: `Cannot start: PORT ${config.port}: ${error instanceof Error ? error.message : String(error)}` };
    }
    store = ops.instrumentStore(store);
  }
  const model = await chooseModel(config, logger);
  const governance = createGovernance({
    source: settings.source,
    store,
    logger,
    model: config.model.name,
    approvers: approversFrom(config),
  });
  // Run records (every process that runs work, the console too): the explorer and `npm run replay` read them.
  const recording = createRunRecording({
    config,
    store,
    logger,
    personaOf: (origin) => governance.runPolicy.runSettings(origin).systemPrompt,
  });
  // The demo model has no facts to pick, so extraction would only cost a call per run.
  const serviceConfig: Config = model.kind === "demo" ? { ...config, memory: { ...config.memory, extractFacts: false } } : config;
  let service: RunningAgentService | undefined;
  let schedules: Schedules | undefined;
  const surfaces: AttachedSurface[] = [];
  let ended: Promise<void> = new Promise<void>(() => {});
  try {
    // Builds the loop once up front, so guard figures that can't work together stop the start with their one line.
    createLoopDeps({ model: model.model, modelName: config.model.name, tools: builtinTools, guards: config.guards });
    const { modelFor } = model;
    // Several processes on one Redis share the work through BullMQ (loaded only then); SQLite and the console keep it in this process.
    const queue =
      location.kind === "redis" && !consoleMode
        ? (await import("./runs/bullmq-work-queue.js")).createBullmqWorkQueue({
            redisUrl: location.url,
            logger,
            consume: config.role !== "ingress",
          })
        : // Made here when measured, so /metrics can read its depth; the runner makes the same one otherwise.
          ops
          ? (await import("./runs/local-work-queue.js")).createLocalWorkQueue(logger)
          : undefined;
    // ---- Schedules (src/runs/schedules): built before the runner (its tool and observer), started with it below.
    schedules = await createProcessSchedules({
      config: config.schedules,
      store,
      logger,
      policy: governance.runPolicy,
      ...(location.kind === "redis" && !consoleMode ? { redisUrl: location.url } : {}),
      ...(ops ? { metrics: slotMetricsOf(ops.metrics) } : {}),
      upgrade: (origin) => ORIGIN_CODECS[origin.surface]?.(origin).origin ?? origin,
    });
    // ---- end of schedules
    service = createAgentService({
      config: serviceConfig,
      model: ops ? ops.instrumentModel(model.model) : model.model,
      store,
      logger,
      runPolicy: governance.runPolicy,
      authority: governance.authority,
      ...(modelFor ? { modelFor: ops ? (name: string) => ops.instrumentModel(modelFor(name)) : modelFor } : {}),
      observers: [...(ops?.observers ?? []), schedules.observer, recording.recorder],
      tools: [schedules.tool],
      ...(queue ? { queue } : {}),
      ...(mcp.manager ? { toolSource: mcp.manager.tools, toolCatalog: mcp.manager.describe } : {}),
    });
    if (ops) {
      service = ops.instrumentService(service);
      if (queue) ops.metrics.setQueueDepthSource(() => queue.depth());
    }
    service = recording.withVotes(service);
    if (model.kind === "demo" && !consoleMode)
      logger.warn("OPENAI_API_KEY=demo: answering with the offline demo model (arithmetic and time only)");
    const core = { service, governance, store, logger };
    // Loaded only when configured: console mode needs neither chat library.
    if (config.slack) {
      const { createSlackSurface } = await import("./surfaces/slack/slack-adapter.js");
      const slack = createSlackSurface({
        config: config.slack,
        logger,
        counter: TokenCounter.forModel(config.model.name),
        takeEvents: config.role !== "worker",
        ...(http ? { httpMount: http } : {}),
        onConnection: (state, reason) => ops?.health.connection("slack", state, reason),
      });
      surfaces.push(attach(slack, core));
    }
    if (config.discord) {
      const { createDiscordSurface } = await import("./surfaces/discord/discord-adapter.js");
      const discord = createDiscordSurface({
        config: config.discord,
        logger,
        messageContent: config.discord.messageContent,
        takeEvents: config.role !== "worker",
        onConnection: (state, reason) => ops?.health.connection("discord", state, reason),
      });
      surfaces.push(attach(discord, core));
    }
    if (consoleMode) {
      const runDemoLoop = createDemoLoopRunner({ guards: config.guards, modelName: config.model.name, logger });
      const terminal = createConsoleSurface({ service, runDemoLoop, model: model.description, logger, ...io });
      ended = terminal.closed;
      surfaces.push(attach(terminal, core));
    }
  } catch (error) {
    await closeAll([], service, store, logger);
    await ops?.close();
    ownership.release();
    if (error instanceof ConfigError) return { kind: "failed", message: `Configuration error: ${error.message}` };
    throw error;
  }

  // The run explorer (/admin): off without ADMIN_TOKEN, and then /admin answers 404 on PORT (src/ops/explorer/explorer.ts).
  let explorer: { readonly port?: number; close(): Promise<void> } = { close: async () => undefined };
  if (config.admin || http) {
    try {
      const { startExplorer } = await import("./ops/explorer/explorer.js");
      explorer = await startExplorer({
        config,
        store,
        records: recording.records,
        service,
        governance,
        logger,
        surfaces: surfaces.map((surface) => surface.name),
        ...(http ? { opsPort: http } : {}),
      });
    } catch (error) {
      await closeAll([], service, store, logger);
      await ops?.close();
      ownership.release();
      const port = config.admin?.port ?? config.port;
      return {
        kind: "failed",
        message: `Cannot start: the run explorer's port ${port}: ${error instanceof Error ? error.message : String(error)}`,
      };
    }
  }

  if (mcp.manager) {
    // Each server gets its first try before the surfaces take messages; one that fails keeps being retried.
    await mcp.manager.start();
    warnAboutAllowedWrites(mcp.manager.tools(), config.toolPolicy, logger);
    const lines = serverLines(mcp.manager.servers());
    if (consoleMode) (io.output ?? process.stdout).write(`${lines.join("\n")}\n`);
    else for (const line of lines) logger.info(line);
  }
  const running = service;
  const started = await Promise.allSettled(
    surfaces.map((surface) => surface.start().then(() => ops?.health.connection(surface.name, "up"))),
  );
  const failure = started.findIndex((result) => result.status === "rejected");
  if (failure >= 0) {
    const reason = (started[failure] as PromiseRejectedResult).reason;
    await closeAll(surfaces, service, store, logger, undefined, schedules);
    await ops?.close();
    await mcp.manager?.close();
    ownership.release();
    if (reason instanceof ConfigError) return { kind: "failed", message: `Configuration error: ${reason.message}` };
    logger.error({ err: reason, surface: surfaces[failure]!.name }, "a surface failed to start");
    return {
      kind: "failed",
      message: `Cannot start ${surfaces[failure]!.name}: ${reason instanceof Error ? reason.message : String(reason)}`,
    };
  }
  // The tokenizer's tables (~0.1 s of work) are built now, a slice at a time, so neither the start nor an ack waits
  // for them. An ingress process runs nothing and counts no tokens: it keeps that CPU for acks.
  if (config.role !== "ingress")
    TokenCounter.prepare(config.model.name).catch((error: unknown) =>
      logger.warn({ err: error }, "could not prepare the tokenizer; it is built on first use"),
    );
  // Only now, with every surface, tool source and expiry handler attached, does queued work run and the process say it is ready.
  await service.start();
  // ---- Schedules fire from now on (an ingress process only records and queues; it fires none).
  const firing = schedules!;
  if (config.role !== "ingress") await firing.start((task, receipt) => running.submit(task, receipt));
  ops?.open();
  logger.info({ surfaces: surfaces.map((surface) => surface.name), model: model.model.name }, "started");
  // Entries an earlier version wrote may hold an interaction's token: each surface's codec rewrites them, in the background.
  void upgradeAuditEntries(governance.runPolicy.audit, ORIGIN_CODECS, logger);

  let stopping: Promise<void> | undefined;
  return {
    kind: "started",
    app: {
      logger,
      surfaces: surfaces.map((surface) => surface.name),
      ...(http ? { port: http.port } : {}),
      ...(explorer.port === undefined ? {} : { adminPort: explorer.port }),
      ended,
      stop: () => {
        // Readiness answers 503 from this moment until the port closes, so load balancers stop sending work first.
        ops?.health.shuttingDown();
        stopping ??= closeAll(surfaces, running, store, logger, governance, firing, () =>
          Promise.all([explorer.close(), recording.close()]).then(() => undefined),
        )
          .then(() => ops?.close())
          .then(() => mcp.manager?.close())
          .finally(() => ownership.release());
        return stopping;
      },
    },
  };
}

type ChosenModel = {
  readonly kind: "demo" | "remote";
  readonly model: Model;
  readonly description: ModelDescription;
  /** A client for a channel's own model (the settings file), one per name. */
  readonly modelFor?: (name: string) => Model;
};

async function chooseModel(config: Config, logger: Logger): Promise<ChosenModel> {
  const { apiKey, baseUrl, name, timeoutMs, maxRetries } = config.model;
  if (!apiKey) return { kind: "demo", model: createDemoModel(), description: { kind: "demo", unusedBaseUrl: baseUrl } };
  // Loaded only for a real model: the demo and the console start without the OpenAI SDK.
  const { createOpenAIModel } = await import("./agent/model-openai.js");
  const clients = new Map<string, Model>();
  const modelFor = (other: string): Model =>
    clients.get(other) ??
    clients.set(other, createOpenAIModel({ apiKey, baseUrl, model: other, timeoutMs, maxRetries, logger })).get(other)!;
  return { kind: "remote", model: modelFor(name), description: { kind: "remote", name, baseUrl }, modelFor };
}

/** Surfaces stop taking events, then the runs reach a safe point and post, then the platform clients and the store close. Never rejects. */
async function closeAll(
  surfaces: readonly AttachedSurface[],
  service: RunningAgentService | undefined,
  store: KeyValueStore,
  logger: Logger,
  governance?: Governance,
  schedules?: Schedules,
  /** The last writes before the store closes (run records). Must not reject. */
  beforeStore?: () => Promise<void>,
): Promise<void> {
  const deadline = Date.now() + SHUTDOWN_BUDGET_MS;
  await Promise.all(surfaces.map((surface) => surface.stopIntake(SURFACE_DRAIN_MS)));
  // No new slots once the surfaces are quiet; a slot due meanwhile fires at the next start.
  await schedules?.close().catch((error: unknown) => logger.warn({ err: error }, "schedules did not stop cleanly"));
  await service
    ?.close(Math.min(RUNNER_GRACE_MS, Math.max(MIN_RUNNER_CLOSE_MS, deadline - Date.now())))
    .catch((error: unknown) => logger.warn({ err: error }, "the runner did not close cleanly"));
  // How the last slot runs ended (failure streaks, silent slots) is written before the store closes.
  await schedules?.settled().catch((error: unknown) => logger.warn({ err: error }, "schedules did not settle"));
  await Promise.all(surfaces.map((surface) => surface.close()));
  // Audit entries of the last runs still go to the store before it closes.
  await governance
    ?.close()
    .catch((error: unknown) => logger.warn({ err: error }, "the settings watcher or the audit log did not close cleanly"));
  await beforeStore?.();
  await store.close().catch((error: unknown) => logger.warn({ err: error }, "the store did not close cleanly"));
}

/** The schedule slots' outcomes as Prometheus counters. */
function slotMetricsOf(metrics: Metrics): SlotMetrics {
  return {
    slot: (outcome, count = 1) => metrics.scheduleSlots.inc({ outcome }, count),
    runEnded: (outcome) => metrics.scheduleRunsEnded.inc({ outcome }),
  };
}
