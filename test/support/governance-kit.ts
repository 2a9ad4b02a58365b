// A real AgentService with a run policy over given settings, on a real store, with a
// scripted model and a movable clock: for the governance tests.
import { createAgentService, type RunningAgentService } from "../../src/runs/agent-service.js";
import type { ScriptedModel } from "../../src/agent/model-scripted.js";
import type { AgentEvent, Model, TaskOrigin, Tool } from "../../src/agent/types.js";
import { loadConfig } from "../../src/config.js";
import { createAuditLog } from "../../src/governance/audit-log.js";
import { createRunPolicy, type RunPolicy } from "../../src/governance/run-policy.js";
import { createAuthority, type Approvers } from "../../src/governance/authority.js";
import { checkSettings, type Settings } from "../../src/governance/settings-schema.js";
import { fixedSettings, type SettingsSource } from "../../src/governance/settings-source.js";
import { silentLogger } from "../../src/logger.js";
import { openStore } from "../../src/memory/keyv-store.js";
import type { KeyValueStore } from "../../src/memory/types.js";

export function settingsOf(data: unknown): Settings {
  const check = checkSettings(data);
  if (check.kind === "invalid") throw new Error(check.problems.join("; "));
  return check.settings;
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
  const config = loadConfig({ STORE_URL: options.storeUrl, MEMORY_EXTRACT_FACTS: "false", ...options.env });
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
