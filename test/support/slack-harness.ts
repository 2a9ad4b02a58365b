// The Slack adapter wired to the REAL agent service (scripted model, SQLite store in a temp
// folder) and a fake Slack, in HTTP or Socket Mode. restart() replaces the adapter and the
// service while keeping the store, like a process restart.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RunningAgentService } from "../../src/runs/service/create-agent-service.js";
import type { Model } from "../../src/contracts/types.js";
import { loadConfig, type Config } from "../../src/config.js";
import { TokenCounter } from "../../src/tokens/token-counter.js";
import { openStore } from "../../src/memory/keyv-store.js";
import type { KeyValueStore } from "../../src/memory/types.js";
import { createSlackSurface, type SlackSurface } from "../../src/adapters/slack/slack-adapter.js";
import { startSlackEventsPort } from "./slack-events-port.js";
import { capturingLogger, type CapturedLog } from "./capturing-logger.js";
import type { SurfaceCore } from "../../src/adapters/core/inbound.js";
import type { SlackClicked } from "../../src/adapters/slack/slack-refs.js";
import type { StreamLimits } from "../../src/adapters/slack/stream-trace.js";
import { startFakeSlack, type FakeSlack } from "./fake-slack.js";
import { SIGNING_SECRET } from "./fake-slack-requests.js";
import { CLIENT_ID, CLIENT_SECRET } from "./fake-slack-oauth.js";
import type { RefreshTiming } from "../../src/adapters/slack/install/bot-tokens.js";
import type { SlackRemoval } from "../../src/adapters/slack/install/removal-events.js";
import type { Settings } from "../../src/governance/settings-schema.js";
import { fixedSettings, type SettingsSource } from "../../src/governance/settings-source.js";
import type { HarnessSchedules } from "./harness-schedules.js";
import { bootSurface, type HarnessRunsOptions } from "./harness-boot.js";
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

export interface HarnessOptions extends HarnessRunsOptions {
  readonly model: Model;
  readonly mode?: "http" | "socket";
  readonly env?: Record<string, string>;
  readonly drainTimeoutMs?: number;
  readonly fake?: FakeSlack;
  readonly streamLimits?: StreamLimits;
  /** The settings file's content: access, limits, channels (governance wired like app.ts does). */
  readonly settings?: Settings;
  /** Settings that change while the bot runs (an edited file), instead of `settings`. */
  readonly settingsSource?: SettingsSource;
  /** `settings` in a file each start opens and watches, as a bot process does BOT_SETTINGS; `editSettings` rewrites it. */
  readonly watchedSettings?: true;
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
    // One message is one question here; the burst tests set a window of their own.
    MESSAGE_DEBOUNCE_MS: "0",
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
    const booted = await bootSurface({
      config,
      store,
      model,
      settings: options.watchedSettings
        ? await openSettingsFile(settingsPath, logger)
        : (options.settingsSource ?? fixedSettings(options.settings)),
      logger,
      options,
      surface,
      stopGraceMs: options.drainTimeoutMs ?? 8_000,
    });
    port?.open();
    const adapter: SlackAdapter = { surface, port: port?.port, core: booted.core, stop: booted.stop };
    return { booted, adapter, closePort: () => port?.close() };
  };
  let current = await boot();
  // The port is this process's too: it closes after the rest (the store outlives restarts).
  const shutdown = async () => {
    await current.booted.shutdown();
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
      return current.booted.service;
    },
    get schedules() {
      return current.booted.scheduling;
    },
    get baseUrl() {
      return `http://127.0.0.1:${current.adapter.port}`;
    },
    get eventsUrl() {
      return `http://127.0.0.1:${current.adapter.port}/slack/events`;
    },
    editSettings(settings) {
      if (!options.watchedSettings) throw new Error("the harness was started without watchedSettings");
      return editSettingsFile(settingsPath, current.booted.governance.source, settings);
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
