// A real AgentService with a run policy over given settings, on a real store, with a
// scripted model and a movable clock: for the governance tests. And the settings file as a bot
// process has it (BOT_SETTINGS): read at start, watched, rewritten by an admin while it runs.
import { rename, writeFile } from "node:fs/promises";
import { createAgentService, type RunningAgentService } from "../../src/runs/service/create-agent-service.js";
import type { ScriptedModel } from "./model-scripted.js";
import type { AgentEvent, Model, TaskOrigin, Tool } from "../../src/contracts/types.js";
import { loadConfig } from "../../src/config.js";
import { createAuditLog } from "../../src/governance/audit-log.js";
import { createRunPolicy, type RunPolicy } from "../../src/governance/run-policy.js";
import { createAuthority, type Approvers } from "../../src/governance/authority.js";
import { checkSettings, type Settings } from "../../src/governance/settings-schema.js";
import { fixedSettings, openSettings, type SettingsSource } from "../../src/governance/settings-source.js";
import { silentLogger, type Logger } from "../../src/logger.js";
import { openStore } from "../../src/memory/keyv-store.js";
import type { KeyValueStore } from "../../src/memory/types.js";

export function settingsOf(data: unknown): Settings {
  const check = checkSettings(data);
  if (check.kind === "invalid") throw new Error(check.problems.join("; "));
  return check.settings;
}

/** Writes the settings file as an admin's editor saves it: a new file renamed into place, so no re-read finds it half-written. */
export async function writeSettingsFile(path: string, settings: Settings): Promise<void> {
  await writeFile(`${path}.tmp`, JSON.stringify(settings));
  await rename(`${path}.tmp`, path);
}

/** Opens the settings file as a starting bot process does: read now, watched from then on. */
export async function openSettingsFile(path: string, logger: Logger): Promise<SettingsSource> {
  const opened = await openSettings(path, logger);
  if (opened.kind === "invalid") throw new Error(opened.problems.join("; "));
  return opened.source;
}

/** Rewrites the settings file while a process watches it; resolves once that process (`source`) applied the new settings. */
export async function editSettingsFile(path: string, source: SettingsSource, settings: Settings): Promise<void> {
  const wanted = JSON.stringify(settings);
  const applied = new Promise<void>((resolve) => source.onReload(() => JSON.stringify(source.current()) === wanted && resolve()));
  await writeSettingsFile(path, settings);
  await applied;
}

export function slackOrigin(user: string, channel = "C1", ts = "1700000000.000100"): TaskOrigin {
  return {
    surface: "slack",
    conversationKey: `slack:T1:${channel}:${ts}`,
    requester: { id: user },
    scope: { channel, dm: channel.startsWith("D"), workspace: "T1", roles: [] },
    place: { team: "T1", channel, thread_ts: ts, reply_thread_ts: ts },
  };
}

export interface GovernedService {
  readonly service: RunningAgentService;
  readonly policy: RunPolicy;
  readonly store: KeyValueStore;
  readonly events: AgentEvent[];
  readonly sink: (event: AgentEvent) => void;
  close(): Promise<void>;
}

export async function governedService(options: {
  model: ScriptedModel;
  storeUrl: string;
  settings: Settings | SettingsSource;
  tools?: readonly Tool[];
  clock?: () => number;
  modelFor?: (name: string) => Model;
  env?: Record<string, string>;
  approvers?: Approvers;
}): Promise<GovernedService> {
  const config = loadConfig({ STORE_URL: options.storeUrl, MEMORY_EXTRACT_FACTS: "false", MESSAGE_DEBOUNCE_MS: "0", ...options.env });
  const store = await openStore(config.storeUrl, silentLogger);
  const settings = "current" in options.settings ? options.settings : fixedSettings(options.settings);
  const clock = options.clock ?? Date.now;
  const policy = createRunPolicy({ settings, store, audit: createAuditLog(store, clock), logger: silentLogger, clock });
  const service = createAgentService({
    config,
    model: options.model,
    store,
    logger: silentLogger,
    clock,
    runPolicy: policy,
    authority: createAuthority({ approvers: options.approvers ?? {}, settings }),
    ...(options.modelFor ? { modelFor: options.modelFor } : {}),
  });
  service.attach("slack", { tools: options.tools ?? [] });
  service.attach("console", { tools: options.tools ?? [] });
  await service.start();
  const events: AgentEvent[] = [];
  return {
    service,
    policy,
    store,
    events,
    sink: (event) => events.push(event),
    async close() {
      await policy.observer.settled();
      await service.close();
      await store.close();
    },
  };
}
