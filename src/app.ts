// Wires the process together: configuration, logs, store, model, the runner, and the surfaces
// (Slack and/or Discord, or the console when no chat tokens are set). main.ts only adds the
// process-level parts: signals, exit codes, the hard-exit backstop.
import { join } from "node:path";
import type { AttachedSurface } from "./adapters/core/attach.js";
import { upgradeAuditEntries } from "./adapters/core/audit-upgrade.js";
import { upgradeOrigin as upgradeDiscordOrigin } from "./adapters/discord/discord-place.js";
import { upgradeOrigin as upgradeSlackOrigin } from "./adapters/slack/slack-place.js";
import { SLACK_EVENTS_ENDPOINT } from "./adapters/slack/events-endpoint.js";
import { createAgentService } from "./runs/service/create-agent-service.js";
import type { OriginUpgrade } from "./runs/api/surface-hooks.js";
import { createRunRecording } from "./ops/records/run-recording.js";
import { contextWindowOf } from "./agent/loop/loop-deps.js";
import { TokenCounter } from "./tokens/token-counter.js";
import type { Surface } from "./contracts/types.js";
import { checkChatModel, checkContextWindow, loadConfig, type Config } from "./config.js";
import { ConfigError, StoreUnavailableError, StoreUrlError } from "./errors.js";
import { approversFrom } from "./governance/authority.js";
import { createGovernance, loadSettings } from "./governance/governance.js";
import { createConsoleLogger, createLogger, logFormatFrom, type LogFormat, type Logger } from "./logger.js";
import { surfaceStartFailure } from "./start-errors.js";
import { priceTable } from "./cost/prices.js";
import { type AppIo, configuredSurfaces, openSurfaces } from "./app-surfaces.js";
import { chooseModel, chooseQueue, slotMetricsOf } from "./app-model.js";
import { hasConsoleInput, NO_TERMINAL_MESSAGE } from "./adapters/console/console-input-check.js";
import { createDemoNoteTool, DEMO_NOTES_FILE } from "./agent/tools/demo-note.js";
import { dataFolderOf } from "./config/store.js";
import { createResourceStack } from "./resource-stack.js";
import { prepareMcp } from "./tools/mcp/mcp-startup.js";
import { startTools } from "./app-tools.js";
import { openExplorer } from "./app-explorer.js";
import { openStore, parseStoreUrl } from "./memory/keyv-store.js";
import { claimStoreOwnership, type OwnerClaim } from "./memory/store-lease.js";
import type { KeyValueStore } from "./memory/types.js";
import { createProcessSchedules } from "./schedules/process-schedules.js";
import { approvalKeySource } from "./runs/approvals/approval-key.js";
import { connectionsAddress, openConnections } from "./app-connections.js";
import { openWorkspaceRemovals } from "./app-removals.js";

export type { AppIo };

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
  /** Disposes the app's resource stack: intake, then runs (bounded), then the platform clients, then the store. Idempotent; never rejects. */
  stop(): Promise<void>;
}

/** `message` is the one line to print before exiting with code 1. */
export type AppStart = { readonly kind: "started"; readonly app: RunningApp } | { readonly kind: "failed"; readonly message: string };

// Shutdown fits inside main.ts's 10 s backstop, in the phases of src/resource-stack.ts: the surfaces
// stop taking events (ports answer 503; clicks and commands already taken get up to 6 s), then runs
// in flight get up to 8 s of what is left of 9 s to reach their next checkpoint and post, then the
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
  let logFormat: LogFormat;
  try {
    config = loadConfig(env);
    logFormat = logFormatFrom(env);
    checkChatModel(config);
    checkContextWindow(contextWindowOf(config.guards, config.model.name), config.guards.reservedOutputTokens);
  } catch (error) {
    if (error instanceof ConfigError) return { kind: "failed", message: `Configuration error: ${error.message}` };
    throw error;
  }
  const consoleMode = !config.slack && !config.discord;
  if (consoleMode && io.input === undefined && !hasConsoleInput()) return { kind: "failed", message: NO_TERMINAL_MESSAGE };
  // Console mode shares the terminal with the conversation: only errors are logged unless LOG_LEVEL asks for more,
  // and the notices an operator must see are lines in the console (held until it shows them).
  const notices: string[] = [];
  let notice = (line: string) => {
    notices.push(line);
  };
  const logger =
    consoleMode && !env.LOG_LEVEL
      ? createConsoleLogger((line) => notice(line), logFormat)
      : createLogger(config.logLevel, undefined, logFormat);
  // The settings file is checked before anything opens: each problem is one line, and the start stops.
  const settings = await loadSettings(config.settingsFile, logger);
  if (settings.kind === "failed") return { kind: "failed", message: settings.lines.join("\n") };
  // The MCP servers file is checked like the environment: one line naming the server and the field.
  const mcp = await prepareMcp(config, env, logger);
  if (mcp.kind === "failed") return { kind: "failed", message: mcp.message };
  const { source } = settings;
  const { manager, starting } = mcp;

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
  // From here on every resource registers its close as it opens; every exit disposes this one stack.
  const stack = createResourceStack(logger);
  stack.defer("store", "the store", async () => {
    try {
      await store.close();
    } finally {
      ownership.release();
    }
  });
  try {
    const started = await openAll();
    if (started.kind === "failed") await stack.dispose();
    return started;
  } catch (error) {
    await stack.dispose();
    if (error instanceof ConfigError) return { kind: "failed", message: `Configuration error: ${error.message}` };
    throw error;
  }

  /** Opens the rest in dependency order, each resource deferring its close to `stack` as it opens. */
  async function openAll(): Promise<AppStart> {
    // Every process but the console serves health, readiness and metrics on PORT; loaded only then (prom-client, tracing).
    const ops = consoleMode ? undefined : await (await import("./ops/ops.js")).startOps(config, store, env, logger);
    let http: Awaited<ReturnType<NonNullable<typeof ops>["listen"]>> | undefined;
    if (ops) {
      stack.defer("clients", "the ops port", () => ops.close());
      // Not ready until each surface connects. The port opens now, before the chat libraries load; Slack's HTTP mode mounts on it.
      for (const surface of configuredSurfaces(config)) ops.health.connection(surface, "starting");
      try {
        // Slack's endpoint answers 503 (which Slack retries) until the start is complete; a worker takes no events.
        const slackEvents = config.slack?.mode.kind === "http" && config.role !== "worker";
        http = await ops.listen(config.port, slackEvents ? [SLACK_EVENTS_ENDPOINT] : []);
      } catch (error) {
        return { kind: "failed", message: `Cannot start: PORT ${config.port}: ${error instanceof Error ? error.message : String(error)}` };
      }
      store = ops.instrumentStore(store);
    }
    const model = await chooseModel(config, logger, { models: source.current().models, env });
    if (model.kind === "failed") return { kind: "failed", message: `Settings error in ${source.path}: ${model.problem}` };
    const prices = priceTable(config.prices, source.current().models);
    const governance = createGovernance({
      source,
      store,
      logger,
      model: config.model.name,
      demo: model.kind === "demo",
      maxSteps: config.guards.maxSteps,
      concurrentMessages: config.conversations.concurrentMessages,
      approvers: approversFrom(config),
    });
    // Audit entries of the last runs still go to the store before it closes.
    stack.defer("store", "the settings watcher and the audit log", () => governance.close());
    // Run records (every process that runs work, the console too): the explorer and `npm run replay` read them.
    const recording = createRunRecording({
      config,
      store,
      logger,
      personaOf: (origin) => governance.runPolicy.runSettings(origin).systemPrompt,
      prices,
    });
    stack.defer("store", "the run records", () => recording.close());
    // Several processes on one Redis share the work through BullMQ (loaded only then); SQLite and the console keep it in this process.
    const queue = await chooseQueue(config, location, { consoleMode, measured: ops !== undefined }, logger);
    // Schedules (src/schedules): built before the runner (its tool and observer), started with it below.
    const schedules = await createProcessSchedules({
      config: config.schedules,
      store,
      logger,
      policy: governance.runPolicy,
      ...(location.kind === "redis" && !consoleMode ? { redisUrl: location.url } : {}),
      ...(ops ? { metrics: slotMetricsOf(ops.metrics) } : {}),
      upgrade: (origin) => ORIGIN_CODECS[origin.surface]?.(origin).origin ?? origin,
    });
    // No new slots once the surfaces are quiet; a slot due meanwhile fires at the next start.
    stack.defer("intake", "the schedules", () => schedules.close());
    // How the last slot runs ended (failure streaks, silent slots) is written before the store closes.
    stack.defer("runs", "the schedules' last outcomes", () => schedules.settled());
    // People's connections to MCP servers behind OAuth: sealed with a key kept like the approval key, called back at PUBLIC_URL.
    const approvalKey = approvalKeySource(config, logger);
    const address = connectionsAddress(config, consoleMode, manager);
    if (address.kind === "failed") return { kind: "failed", message: `Configuration error: ${address.message}` };
    // In the console the explorer, when on, serves 127.0.0.1:PORT: the /oauth pages go with it.
    const explorerServes = consoleMode && config.admin !== undefined && config.admin.port === undefined;
    const oauth =
      manager && address.kind === "ready"
        ? openConnections({
            address: address.address,
            store,
            key: approvalKey,
            manager,
            logger,
            consoleMode,
            port: config.port,
            stack,
            explorerServes,
            ...(http ? { http } : {}),
          })
        : undefined;
    // The demo model has no facts to pick, so extraction would only cost a call per run.
    const serviceConfig: Config = model.kind === "demo" ? { ...config, memory: { ...config.memory, extractFacts: false } } : config;
    const { modelFor } = model;
    let service = createAgentService({
      config: serviceConfig,
      model: ops ? ops.instrumentModel(model.model) : model.model,
      store,
      logger,
      runPolicy: governance.runPolicy,
      authority: governance.authority,
      ...(modelFor ? { modelFor: ops ? (name: string) => ops.instrumentModel(modelFor(name)) : modelFor } : {}),
      observers: [...(ops?.observers ?? []), schedules.observer, recording.recorder],
      // The offline demo's one write (a scratch file in the data folder), so an approval shows with nothing set up.
      tools:
        model.kind === "demo"
          ? [schedules.tool, createDemoNoteTool(join(dataFolderOf(config.storeUrl), DEMO_NOTES_FILE))]
          : [schedules.tool],
      showSlot: schedules.showSlot,
      ...(queue ? { queue } : {}),
      ...(manager ? { toolSource: manager.tools, toolCatalog: manager.describe } : {}),
      approvalKey,
      ...(oauth ? { connectLink: oauth.connectLink, connections: oauth.people } : {}),
    });
    const runner = service;
    oauth?.bind(service.connectionGrants);
    // Runs in flight get what is left of the budget (at most RUNNER_GRACE_MS) to reach their next checkpoint and post.
    stack.defer("runs", "the runner", () =>
      runner.close(Math.min(RUNNER_GRACE_MS, Math.max(MIN_RUNNER_CLOSE_MS, SHUTDOWN_BUDGET_MS - stack.elapsedMs()))),
    );
    if (ops) {
      service = ops.instrumentService(service);
      if (queue) ops.metrics.setQueueDepthSource(() => queue.depth());
      if (model.breakers) ops.metrics.setEndpointSource(model.breakers.all);
    }
    service = recording.withRecords(service);
    const surfaces: AttachedSurface[] = [];
    const removals = openWorkspaceRemovals({
      config,
      store,
      service,
      audit: governance.runPolicy.audit,
      records: recording.records,
      book: schedules.book,
      approvalKey,
      surfaces: () => surfaces,
      logger,
      stack,
    });
    if (model.kind === "demo" && !consoleMode)
      logger.warn("OPENAI_API_KEY=demo: answering with the offline demo model (arithmetic and time only)");

    let ended: Promise<void> = new Promise<void>(() => {});
    const surfaceDeps = {
      config,
      service,
      governance,
      store,
      logger,
      model: model.description,
      ...(http ? { http } : {}),
      onConnection: (surface: Surface, state: "up" | "down", reason?: string) => ops?.health.connection(surface, state, reason),
      io,
      schedules,
      prices,
      approvalKey,
      removal: removals.removal,
      showNotices(show: (line: string) => void) {
        notice = show;
        for (const line of notices.splice(0)) show(line);
      },
    };
    await openSurfaces(surfaceDeps, (opened) => {
      surfaces.push(opened.surface);
      if (opened.ended) ended = opened.ended;
    });

    const names = surfaces.map((surface) => surface.name);
    const explorerOptions = {
      config,
      store,
      records: recording.records,
      service,
      governance,
      logger,
      surfaces: names,
      ...(oauth ? { connections: () => oauth.connections.store.everyone() } : {}),
      ...(oauth && explorerServes ? { oauth: oauth.listener } : {}),
    };
    const explorer = await openExplorer({ ...explorerOptions, ...(http ? { opsPort: http } : {}) }, stack);
    if (explorer.kind === "failed") return explorer;
    const adminPort = explorer.port;

    const write = consoleMode ? (lines: readonly string[]) => (io.output ?? process.stdout).write(`${lines.join("\n")}\n`) : undefined;
    // The console logs no info lines: where the explorer is, with its real port, is a line of its own there.
    if (write && explorer.url) write([`Run explorer: ${explorer.url} (sign in with ADMIN_TOKEN)`]);
    // Each MCP server gets its first try before the surfaces take messages.
    await startTools({ config, ...(manager ? { manager } : {}), starting, ...(write ? { write } : {}), stack, source, logger }, () => [
      ...new Set(surfaces.flatMap((surface) => service.tools.list(surface.name).tools.map((tool) => tool.name))),
    ]);
    // The surfaces open (connect) now. Clicks and commands already taken get up to SURFACE_DRAIN_MS to finish;
    // a platform client closed before the runs posted could not post.
    stack.defer("intake", "the surfaces' intake", () => Promise.all(surfaces.map((surface) => surface.stopIntake(SURFACE_DRAIN_MS))));
    stack.defer("clients", "the platform clients", () => Promise.all(surfaces.map((surface) => surface.close())));
    const started = await Promise.allSettled(
      surfaces.map((surface) => surface.start().then(() => ops?.health.connection(surface.name, "up"))),
    );
    const failure = started.findIndex((result) => result.status === "rejected");
    if (failure >= 0) {
      const reason = (started[failure] as PromiseRejectedResult).reason;
      if (reason instanceof ConfigError) return { kind: "failed", message: `Configuration error: ${reason.message}` };
      return { kind: "failed", message: surfaceStartFailure(surfaces[failure]!.name, reason, config, logger) };
    }
    // The tokenizer's tables (~0.1 s of work) are built now, a slice at a time, so neither the start nor an ack waits
    // for them. An ingress process runs nothing and counts no tokens: it keeps that CPU for acks.
    if (config.role !== "ingress")
      TokenCounter.prepare(config.model.name).catch((error: unknown) =>
        logger.warn({ err: error }, "could not prepare the tokenizer; it is built on first use"),
      );
    // Only now, with every surface, tool source and expiry handler attached, does queued work run and the process say it is ready.
    await service.start();
    // Schedules fire from now on (an ingress process only records and queues; it fires none).
    const running = service;
    if (config.role !== "ingress") await schedules.start((task, receipt) => running.submit(task, receipt));
    // Erasures booked by any process (or before a restart) are carried out when due; an ingress process only books them.
    if (config.role !== "ingress" && !consoleMode) removals.erasures.start();
    if (ops) {
      ops.open();
      // Readiness answers 503 from the first moment of the stop until the port closes, so load balancers stop sending work first.
      stack.defer("intake", "readiness", () => ops.health.shuttingDown());
    }
    logger.info({ surfaces: surfaces.map((surface) => surface.name), model: model.model.name }, "started");
    // Entries an earlier version wrote may hold an interaction's token: each surface's codec rewrites them, in the background.
    void upgradeAuditEntries(governance.runPolicy.audit, ORIGIN_CODECS, logger);

    return {
      kind: "started",
      app: {
        logger,
        surfaces: surfaces.map((surface) => surface.name),
        ...(http ? { port: http.port } : {}),
        ...(adminPort === undefined ? {} : { adminPort }),
        ended,
        stop: () => stack.dispose(),
      },
    };
  }
}
