// The Slack adapter wired to the REAL agent service (scripted model, SQLite store in a temp
// folder) and a fake Slack, in HTTP or Socket Mode. restart() replaces the adapter and the
// service while keeping the store, like a process restart.
import { createLocalWorkQueue } from "../../src/runs/queue/local-work-queue.js";
import type { WorkQueue } from "../../src/runs/queue/work-queue.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAgentService, type RunningAgentService } from "../../src/runs/service/create-agent-service.js";
import { connectDeps, type HarnessConnect } from "./connect-stand-in.js";
import type { Model, Tool } from "../../src/contracts/types.js";
import { loadConfig, type Config } from "../../src/config.js";
import { TokenCounter } from "../../src/tokens/token-counter.js";
import { openStore } from "../../src/memory/keyv-store.js";
import type { KeyValueStore } from "../../src/memory/types.js";
import { createSlackSurface, type SlackSurface } from "../../src/adapters/slack/slack-adapter.js";
import { startSlackEventsPort } from "./slack-events-port.js";
import { capturingLogger, type CapturedLog } from "./capturing-logger.js";
import { attach } from "../../src/adapters/core/attach.js";
import type { SurfaceCore } from "../../src/adapters/core/inbound.js";
import type { SlackClicked } from "../../src/adapters/slack/slack-refs.js";
import { approversFrom } from "../../src/governance/authority.js";
import type { StreamLimits } from "../../src/adapters/slack/stream-trace.js";
import { startFakeSlack, type FakeSlack } from "./fake-slack.js";
import { SIGNING_SECRET } from "./fake-slack-requests.js";
import { CLIENT_ID, CLIENT_SECRET } from "./fake-slack-oauth.js";
import type { RefreshTiming } from "../../src/adapters/slack/install/bot-tokens.js";
import type { SlackRemoval } from "../../src/adapters/slack/install/removal-events.js";
import { createGovernance } from "../../src/governance/governance.js";
import type { Settings } from "../../src/governance/settings-schema.js";
import { fixedSettings, type SettingsSource } from "../../src/governance/settings-source.js";
import type { TimerClock } from "../../src/schedules/local-slot-timer.js";
import { harnessSchedules, startFiring, type HarnessSchedules } from "./harness-schedules.js";
import { editSettingsFile, openSettingsFile, settingsOf, writeSettingsFile } from "./governance-harness.js";

/** The Slack surface under the core, as the app runs it; `stop` stops taking events (the runner and the client close later). */
export interface SlackAdapter {
  readonly surface: SlackSurface;
  readonly port: number | undefined;
  /** The core's flows, as the surface hands events to them. */
  readonly core: SurfaceCore<SlackClicked>;
  stop(): Promise<void>;
}

export interface SlackHarness {
  readonly fake: FakeSlack;
  readonly store: KeyValueStore;
  readonly config: Config;
  readonly adapter: SlackAdapter;
  readonly service: RunningAgentService;
  /** With `schedules` in the options: this process's schedules. */
  readonly schedules: HarnessSchedules | undefined;
  /** Every log line, parsed. */
  readonly logs: readonly CapturedLog[];
  /** HTTP mode: where Slack posts events and clicks. */
  readonly eventsUrl: string;
  readonly baseUrl: string;
  /** `model`: the new process's model (default: the same one, which goes on with its script). */
  restart(model?: Model): Promise<void>;
  /** With `watchedSettings`: an admin rewrites the settings file; resolves once the running process applied it. */
  editSettings(settings: Settings): Promise<void>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  readonly model: Model;
  readonly mode?: "http" | "socket";
  readonly env?: Record<string, string>;
  readonly clock?: () => number;
  readonly drainTimeoutMs?: number;
  readonly fake?: FakeSlack;
  readonly streamLimits?: StreamLimits;
  /** The settings file's content: access, limits, channels (governance wired like app.ts does). */
  readonly settings?: Settings;
  /** Settings that change while the bot runs (an edited file), instead of `settings`. */
  readonly settingsSource?: SettingsSource;
  /** `settings` in a file each start opens and watches, as a bot process does BOT_SETTINGS; `editSettings` rewrites it. */
  readonly watchedSettings?: true;
  /** Puts a fault between the service and its (in-process) work queue. */
  readonly wrapQueue?: (queue: WorkQueue) => WorkQueue;
  /** Tools that act as the person and the Connect links of their pauses. */
  readonly connect?: HarnessConnect;
  /** Tools that come and go (an MCP manager's), as app.ts hands them to the service. */
  readonly toolSource?: () => readonly Tool[];
  /** Schedules as app.ts wires them; `clock` is what only they read (a test moves it to fire slots). */
  readonly schedules?: { readonly clock?: TimerClock };
  /** Installed in workspaces through the install pages (SLACK_CLIENT_ID) instead of SLACK_BOT_TOKEN. */
  readonly installs?: { readonly timing?: Partial<RefreshTiming>; readonly removed?: (removal: SlackRemoval) => Promise<void> };
}

/** Where the installs' tests say the bot is reached: only a name in links (the tests call the port directly). */
export const INSTALL_PUBLIC_URL = "https://bot.example.test/";
/** The test's sealing key material (the app's is the approval key). */
export const INSTALL_KEY = async () => Buffer.alloc(32, 7);

/** A Slack bot's configuration against `fake`, its store in `folder`: HTTP mode (the signing secret) or Socket Mode (an app token). */
export function slackConfig(
  fake: FakeSlack,
  mode: "http" | "socket",
  folder: string,
  env: Record<string, string> = {},
  installs = false,
): Config {
  return loadConfig({
    STORE_URL: `sqlite://${join(folder, "bot.sqlite")}`,
    MEMORY_EXTRACT_FACTS: "false",
    ...(installs
      ? { SLACK_CLIENT_ID: CLIENT_ID, SLACK_CLIENT_SECRET: CLIENT_SECRET, PUBLIC_URL: INSTALL_PUBLIC_URL }
      : { SLACK_BOT_TOKEN: "xoxb-test-token" }),
    ...(mode === "socket" ? { SLACK_APP_TOKEN: "xapp-test-token" } : { SLACK_SIGNING_SECRET: SIGNING_SECRET }),
    SLACK_API_URL: fake.apiUrl,
    PORT: "0",
    ...env,
  });
}

export async function startSlackHarness(options: HarnessOptions): Promise<SlackHarness> {
  const fake = options.fake ?? (await startFakeSlack());
  const mode = options.mode ?? "http";
  const folder = mkdtempSync(join(tmpdir(), "slack-adapter-"));
  const config = slackConfig(fake, mode, folder, options.env, options.installs !== undefined);
  const { logger, lines: logs } = capturingLogger("debug");
  const store = await openStore(config.storeUrl, logger);

  let model = options.model;
  const settingsPath = join(folder, "bot.settings.json");
  if (options.watchedSettings) await writeSettingsFile(settingsPath, options.settings ?? settingsOf({}));
  const boot = async () => {
    const governance = createGovernance({
      source: options.watchedSettings
        ? await openSettingsFile(settingsPath, logger)
        : (options.settingsSource ?? fixedSettings(options.settings)),
      store,
      logger,
      model: config.model.name,
      maxSteps: config.guards.maxSteps,
      approvers: approversFrom(config),
      ...(options.clock ? { clock: options.clock } : {}),
    });
    const scheduling = harnessSchedules(options.schedules, { config, store, logger, governance });
    const service = createAgentService({
      config,
      model,
      store,
      logger,
      clock: options.clock,
      runPolicy: governance.runPolicy,
      authority: governance.authority,
      ...(scheduling
        ? { observers: [scheduling.schedules.observer], tools: [scheduling.schedules.tool], showSlot: scheduling.schedules.showSlot }
        : {}),
      ...(options.wrapQueue ? { queue: options.wrapQueue(createLocalWorkQueue(logger)) } : {}),
      ...connectDeps(options.connect, scheduling ? [scheduling.schedules.tool] : []),
      ...(options.toolSource ? { toolSource: options.toolSource } : {}),
    });
    // HTTP mode as a bot process has it: the events endpoint on the process's port, answering 503 until it opens.
    const port = mode === "http" || options.installs ? await startSlackEventsPort(logger) : undefined;
    const surface = createSlackSurface({
      config: config.slack!,
      logger,
      counter: TokenCounter.forModel(config.model.name),
      ...(port && mode === "http" ? { httpMount: port } : {}),
      ...(options.installs
        ? {
            installs: {
              store,
              sealingKey: INSTALL_KEY,
              ...(port ? { pages: port } : {}),
              ...(options.installs.timing ? { timing: options.installs.timing } : {}),
              ...(options.installs.removed ? { removed: options.installs.removed } : {}),
            },
          }
        : {}),
      ...(options.streamLimits ? { streamLimits: options.streamLimits } : {}),
      ...(options.clock ? { now: options.clock } : {}),
    });
    let core: SurfaceCore<SlackClicked> | undefined;
    const watched: SlackSurface = Object.create(surface, {
      start: {
        value: (flows: SurfaceCore<SlackClicked>) => {
          core = flows;
          return surface.start(flows);
        },
      },
    });
    const attached = attach(watched, {
      service,
      governance,
      store,
      logger,
      ...(options.clock ? { clock: options.clock } : {}),
      ...(scheduling ? { schedules: scheduling.schedules } : {}),
    });
    await attached.start();
    await service.start();
    if (scheduling) await startFiring(scheduling.schedules, service);
    port?.open();
    const adapter: SlackAdapter = {
      surface,
      port: port?.port,
      core: core!,
      stop: () => attached.stopIntake(options.drainTimeoutMs ?? 8_000),
    };
    return { service, adapter, attached, governance, scheduling, closePort: () => port?.close() };
  };
  let current = await boot();
  // In the app's order: no new events, the runs reach their checkpoint and post, then the client and the port close.
  const shutdown = async () => {
    await current.adapter.stop();
    await current.scheduling?.schedules.close();
    await current.service.close();
    await current.attached.close();
    await current.governance.close();
    await current.closePort();
  };
  if (mode === "socket") await fake.waitForSocket();

  const harness: SlackHarness = {
    fake,
    store,
    config,
    logs,
    get adapter() {
      return current.adapter;
    },
    get service() {
      return current.service;
    },
    get schedules() {
      return current.scheduling;
    },
    get baseUrl() {
      return `http://127.0.0.1:${current.adapter.port}`;
    },
    get eventsUrl() {
      return `http://127.0.0.1:${current.adapter.port}/slack/events`;
    },
    editSettings(settings) {
      if (!options.watchedSettings) throw new Error("the harness was started without watchedSettings");
      return editSettingsFile(settingsPath, current.governance.source, settings);
    },
    async restart(next) {
      if (next) model = next;
      await shutdown();
      current = await boot();
    },
    async close() {
      await shutdown();
      await store.close();
      if (!options.fake) await fake.close();
      rmSync(folder, { recursive: true, force: true });
    },
  };
  return harness;
}

/** A model whose calls wait until the test opens the gate; replies come from `inner`. */
export function gatedModel(inner: Model): Model & { open(): void; readonly waiting: Promise<void> } {
  let open: () => void = () => {};
  const gate = new Promise<void>((resolve) => (open = resolve));
  let reached: () => void = () => {};
  const waiting = new Promise<void>((resolve) => (reached = resolve));
  return {
    name: inner.name,
    open: () => open(),
    waiting,
    async complete(request, signal) {
      reached();
      // Like a real model client, a call waiting here rejects once its signal aborts (a Stop, the deadline).
      await new Promise<void>((resolve, reject) => {
        signal.addEventListener("abort", () => reject(signal.reason), { once: true });
        void gate.then(resolve);
      });
      return inner.complete(request, signal);
    },
  };
}
