// The whole Discord surface under test: the fake Discord, a real AgentService (scripted
// model, SQLite store in a temp folder) and the real adapter with the real discord.js
// client. `restart` replaces the service and the adapter as a new process would, on the
// same store.
import { createLocalWorkQueue } from "../../src/runs/queue/local-work-queue.js";
import type { WorkQueue } from "../../src/runs/queue/work-queue.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAgentService, type RunningAgentService } from "../../src/runs/service/create-agent-service.js";
import { connectDeps, type HarnessConnect } from "./connect-stand-in.js";
import { ScriptedModel, type ScriptStep } from "./model-scripted.js";
import type { Model, Tool } from "../../src/contracts/types.js";
import { attach, type AttachedSurface } from "../../src/adapters/core/attach.js";
import type { SurfaceCore } from "../../src/adapters/core/inbound.js";
import { createDiscordSurface, type DiscordSurfaceDeps } from "../../src/adapters/discord/discord-adapter.js";
import type { DiscordClicked } from "../../src/adapters/discord/discord-events.js";
import { approversFrom } from "../../src/governance/authority.js";
import { loadConfig, type Config } from "../../src/config.js";
import { silentLogger } from "../../src/logger.js";
import { openStore } from "../../src/memory/keyv-store.js";
import type { KeyValueStore } from "../../src/memory/types.js";
import { FakeDiscord, type RecordedCall } from "./fake-discord.js";
import { capturingLogger, type CapturedLog } from "./capturing-logger.js";
import { nextSnowflake, type FakeUser } from "./fake-discord-payloads.js";
import { createGovernance } from "../../src/governance/governance.js";
import type { Settings } from "../../src/governance/settings-schema.js";
import { fixedSettings } from "../../src/governance/settings-source.js";
import type { TimerClock } from "../../src/schedules/local-slot-timer.js";
import { harnessSchedules, startFiring, type HarnessSchedules } from "./harness-schedules.js";
import { editSettingsFile, openSettingsFile, settingsOf, writeSettingsFile } from "./governance-harness.js";

export interface HarnessOptions {
  readonly script: readonly ScriptStep[];
  readonly whenExhausted?: ScriptStep;
  readonly env?: Record<string, string>;
  readonly clock?: () => number;
  readonly adapter?: Pick<DiscordSurfaceDeps, "messageContent" | "progressIntervalMs" | "takeEvents" | "uploadLimitBytes">;
  /** Every model call waits for this before the script answers it. */
  readonly gate?: Promise<void>;
  /** The model the service is given, around the scripted one (a held model). */
  readonly wrapModel?: (model: Model) => Model;
  /** How long stopping waits for clicks and commands in flight. */
  readonly stopGraceMs?: number;
  /** The settings file's content (access, limits, channels), given the harness's people. */
  readonly settings?: (people: {
    alice: FakeUser;
    bob: FakeUser;
    carol: FakeUser;
    dave: FakeUser;
    approverRole: string;
    fake: FakeDiscord;
  }) => Settings;
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
}

export interface DiscordHarness {
  readonly fake: FakeDiscord;
  readonly config: Config;
  readonly store: KeyValueStore;
  readonly service: RunningAgentService;
  readonly model: ScriptedModel;
  /** With `schedules` in the options: this process's schedules. */
  readonly schedules: HarnessSchedules | undefined;
  /** The surface under the core; `stop` stops taking events (the runner and then the client close in restart and close). */
  readonly adapter: { stop(): Promise<void>; readonly core: SurfaceCore<DiscordClicked> };
  /** The adapter's log lines (info and up), parsed. */
  readonly logs: readonly CapturedLog[];
  /** Asks the questions. */
  readonly alice: FakeUser;
  /** Nobody in particular. */
  readonly bob: FakeUser;
  /** In DISCORD_APPROVERS. */
  readonly carol: FakeUser;
  /** Has the DISCORD_APPROVER_ROLE role (pass `approverRole` with the click). */
  readonly dave: FakeUser;
  readonly approverRole: string;
  /** Stops adapter, service and store, then starts new ones on the same store with this script. */
  restart(script: readonly ScriptStep[]): Promise<void>;
  /** With `watchedSettings`: an admin rewrites the settings file; resolves once the running process applied it. */
  editSettings(settings: Settings): Promise<void>;
  close(): Promise<void>;
}

export async function startDiscordHarness(options: HarnessOptions): Promise<DiscordHarness> {
  const approverRole = nextSnowflake();
  const fake = await FakeDiscord.start({ roles: [{ id: approverRole, name: "approvers" }] });
  const folder = mkdtempSync(join(tmpdir(), "discord-adapter-"));
  const carol: FakeUser = { id: nextSnowflake(), username: "carol" };
  const config = loadConfig({
    STORE_URL: `sqlite://${join(folder, "bot.sqlite")}`,
    MEMORY_EXTRACT_FACTS: "false",
    // One message is one question here; the burst tests set a window of their own.
    MESSAGE_DEBOUNCE_MS: "0",
    DISCORD_TOKEN: fake.token,
    DISCORD_APPLICATION_ID: fake.applicationId,
    DISCORD_API_URL: fake.apiUrl,
    DISCORD_APPROVERS: carol.id,
    DISCORD_APPROVER_ROLE: approverRole,
    ...options.env,
  });

  const { logger, lines: logs } = capturingLogger("info");
  const people = {
    alice: { id: nextSnowflake(), username: "alice" },
    bob: { id: nextSnowflake(), username: "bob" },
    carol,
    dave: { id: nextSnowflake(), username: "dave" },
  };
  const settingsPath = join(folder, "bot.settings.json");
  const settingsAt = () => (options.settings ? options.settings({ ...people, approverRole, fake }) : undefined);
  if (options.watchedSettings) await writeSettingsFile(settingsPath, settingsAt() ?? settingsOf({}));
  const boot = async (script: readonly ScriptStep[]) => {
    const model = new ScriptedModel(script, options.whenExhausted ? { whenExhausted: options.whenExhausted } : {});
    const store = await openStore(config.storeUrl, silentLogger);
    const governance = createGovernance({
      source: options.watchedSettings ? await openSettingsFile(settingsPath, silentLogger) : fixedSettings(settingsAt()),
      store,
      logger: silentLogger,
      model: config.model.name,
      maxSteps: config.guards.maxSteps,
      approvers: approversFrom(config),
    });
    const scheduling = harnessSchedules(options.schedules, { config, store, logger: silentLogger, governance });
    const service = createAgentService({
      config,
      model: options.wrapModel ? options.wrapModel(model) : options.gate ? gated(model, options.gate) : model,
      store,
      logger: silentLogger,
      ...(scheduling
        ? { observers: [scheduling.schedules.observer], tools: [scheduling.schedules.tool], showSlot: scheduling.schedules.showSlot }
        : {}),
      ...(options.clock ? { clock: options.clock } : {}),
      runPolicy: governance.runPolicy,
      authority: governance.authority,
      ...(options.wrapQueue ? { queue: options.wrapQueue(createLocalWorkQueue(silentLogger)) } : {}),
      ...connectDeps(options.connect, scheduling ? [scheduling.schedules.tool] : []),
      ...(options.toolSource ? { toolSource: options.toolSource } : {}),
    });
    const surface = createDiscordSurface({
      config: config.discord!,
      logger,
      ...(options.clock ? { clock: options.clock } : {}),
      ...options.adapter,
    });
    let core: SurfaceCore<DiscordClicked> | undefined;
    const watched = {
      ...surface,
      start: (flows: SurfaceCore<DiscordClicked>) => {
        core = flows;
        return surface.start(flows);
      },
    };
    const attached: AttachedSurface = attach(watched, {
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
    const adapter = { stop: () => attached.stopIntake(options.stopGraceMs ?? 6_000), core: core! };
    return { model, store, service, adapter, attached, governance, scheduling };
  };
  let running = await boot(options.script);
  // In the app's order: no new events, the runs reach their checkpoint and post, then the client and the store close.
  const shutdown = async () => {
    await running.adapter.stop();
    await running.scheduling?.schedules.close();
    // Short: a test's run that never ends must not hold the next step up.
    await running.service.close(1_000);
    await running.attached.close();
    await running.governance.close();
    await running.store.close();
  };

  return {
    fake,
    config,
    get store() {
      return running.store;
    },
    get service() {
      return running.service;
    },
    get model() {
      return running.model;
    },
    get schedules() {
      return running.scheduling;
    },
    get adapter() {
      return running.adapter;
    },
    logs,
    ...people,
    approverRole,
    editSettings(settings) {
      if (!options.watchedSettings) throw new Error("the harness was started without watchedSettings");
      return editSettingsFile(settingsPath, running.governance.source, settings);
    },
    async restart(script) {
      await shutdown();
      running = await boot(script);
    },
    async close() {
      await shutdown();
      await fake.close();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

function gated(model: Model, gate: Promise<void>): Model {
  return {
    name: model.name,
    async complete(request, signal) {
      // Like a real model client, a call waiting here rejects once its signal aborts (a Stop, the deadline).
      await new Promise<void>((resolve, reject) => {
        signal.addEventListener("abort", () => reject(signal.reason), { once: true });
        void gate.then(resolve);
      });
      return model.complete(request, signal);
    },
  };
}

/** Every call that sent message text (channel messages, webhook messages, interaction replies). */
export function messageBodies(calls: readonly RecordedCall[]): any[] {
  return calls
    .filter(
      (call) =>
        (call.method === "POST" || call.method === "PATCH") && /\/messages|\/webhooks\//.test(call.path) && !call.path.endsWith("/threads"),
    )
    .map((call) => call.body);
}

/** A message sent or edited through an interaction's webhook, @original excluded (follow-ups). */
export function followUpWith(fake: FakeDiscord, token: string, predicate: (content: string) => boolean): Promise<RecordedCall> {
  const path = new RegExp(`^/webhooks/${fake.applicationId}/${token}(/messages/\\d+)?$`);
  return fake.waitForCall(["POST", "PATCH"], path, (call) => typeof call.body?.content === "string" && predicate(call.body.content));
}

export const webhookPath = (fake: FakeDiscord, token: string) => new RegExp(`^/webhooks/${fake.applicationId}/${token}$`);
export const originalPath = (fake: FakeDiscord, token: string) =>
  new RegExp(`^/webhooks/${fake.applicationId}/${token}/messages/@original$`);
