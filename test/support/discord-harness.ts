// The whole Discord surface under test: the fake Discord, a real AgentService (scripted
// model, SQLite store in a temp folder) and the real adapter with the real discord.js
// client. `restart` replaces the service and the adapter as a new process would, on the
// same store.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RunningAgentService } from "../../src/runs/service/create-agent-service.js";
import { ScriptedModel, type ScriptStep } from "./model-scripted.js";
import type { Model } from "../../src/contracts/types.js";
import type { SurfaceCore } from "../../src/adapters/core/inbound.js";
import { createDiscordSurface, type DiscordSurfaceDeps } from "../../src/adapters/discord/discord-adapter.js";
import type { DiscordClicked } from "../../src/adapters/discord/discord-events.js";
import { loadConfig, type Config } from "../../src/config.js";
import { silentLogger } from "../../src/logger.js";
import { openStore } from "../../src/memory/keyv-store.js";
import type { KeyValueStore } from "../../src/memory/types.js";
import { FakeDiscord, type RecordedCall } from "./fake-discord.js";
import { capturingLogger, type CapturedLog } from "./capturing-logger.js";
import { nextSnowflake, type FakeUser } from "./fake-discord-payloads.js";
import type { Settings } from "../../src/governance/settings-schema.js";
import { fixedSettings } from "../../src/governance/settings-source.js";
import type { HarnessSchedules } from "./harness-schedules.js";
import { bootSurface, type HarnessRunsOptions } from "./harness-boot.js";
import { editSettingsFile, openSettingsFile, settingsOf, writeSettingsFile } from "./governance-harness.js";

export interface HarnessOptions extends HarnessRunsOptions {
  readonly script: readonly ScriptStep[];
  readonly whenExhausted?: ScriptStep;
  readonly env?: Record<string, string>;
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
    const booted = await bootSurface({
      config,
      store,
      model: options.wrapModel ? options.wrapModel(model) : options.gate ? gated(model, options.gate) : model,
      settings: options.watchedSettings ? await openSettingsFile(settingsPath, silentLogger) : fixedSettings(settingsAt()),
      logger,
      runsLogger: silentLogger,
      options,
      surface: createDiscordSurface({
        config: config.discord!,
        logger,
        ...(options.clock ? { clock: options.clock } : {}),
        ...options.adapter,
      }),
      stopGraceMs: options.stopGraceMs ?? 6_000,
      // Short: a test's run that never ends must not hold the next step up.
      serviceCloseMs: 1_000,
    });
    return { model, store, booted };
  };
  let running = await boot(options.script);
  // The store is this process's too: it closes after the rest, as in the app.
  const shutdown = async () => {
    await running.booted.shutdown();
    await running.store.close();
  };

  return {
    fake,
    config,
    get store() {
      return running.store;
    },
    get service() {
      return running.booted.service;
    },
    get model() {
      return running.model;
    },
    get schedules() {
      return running.booted.scheduling;
    },
    get adapter() {
      return running.booted;
    },
    logs,
    ...people,
    approverRole,
    editSettings(settings) {
      if (!options.watchedSettings) throw new Error("the harness was started without watchedSettings");
      return editSettingsFile(settingsPath, running.booted.governance.source, settings);
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

/** The approval card an /ask brought: its message, its buttons' ids and its text. */
export interface DiscordApprovalCard {
  readonly messageId: string;
  readonly approve: string;
  readonly deny: string;
  readonly content: string;
}

/** `user` asks with /ask; resolves with the approval card the run then posts as a follow-up. */
export async function askUntilApproval(h: DiscordHarness, user: FakeUser, question: string): Promise<DiscordApprovalCard> {
  const { fake } = h;
  const { token } = fake.slashCommand("ask", user, { values: { question } });
  await fake.waitForCall("PATCH", originalPath(fake, token), (request) => String(request.body.content).startsWith("⏸️"));
  const posted = await fake.waitForCall(
    "POST",
    webhookPath(fake, token),
    (request) => Array.isArray(request.body.components) && request.body.components.length > 0,
  );
  const message = fake.messagesIn(fake.general.id).find((candidate) => candidate.content === posted.body.content)!;
  const [approve, deny] = (posted.body.components[0].components as { custom_id: string }[]).map((button) => button.custom_id);
  return { messageId: message.id, approve: approve!, deny: deny!, content: String(posted.body.content) };
}

/** A message sent or edited through an interaction's webhook, @original excluded (follow-ups). */
export function followUpWith(fake: FakeDiscord, token: string, predicate: (content: string) => boolean): Promise<RecordedCall> {
  const path = new RegExp(`^/webhooks/${fake.applicationId}/${token}(/messages/\\d+)?$`);
  return fake.waitForCall(["POST", "PATCH"], path, (call) => typeof call.body?.content === "string" && predicate(call.body.content));
}

export const webhookPath = (fake: FakeDiscord, token: string) => new RegExp(`^/webhooks/${fake.applicationId}/${token}$`);
export const originalPath = (fake: FakeDiscord, token: string) =>
  new RegExp(`^/webhooks/${fake.applicationId}/${token}/messages/@original$`);
