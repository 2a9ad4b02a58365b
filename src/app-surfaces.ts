// The surfaces the process can run, as one table with one dependency shape: each entry says when
// it is configured and how to build its platform side; the core attaches every one the same way.
// Slack and Discord are loaded only when configured: the console needs neither chat library.
import type { Logger } from "./logger.js";
import type { Config } from "./config.js";
import type { Governance } from "./governance/governance.js";
import type { KeyValueStore } from "./memory/types.js";
import type { RunningAgentService } from "./runs/service/create-agent-service.js";
import { attach, type AttachedSurface, type CoreDeps } from "./adapters/core/attach.js";
import { createConsoleSurface } from "./adapters/console/console-adapter.js";
import type { ModelDescription } from "./adapters/console/console-text.js";
import type { OpsServer } from "./ops/ops-server.js";
import type { ApprovalKey } from "./runs/approvals/approval-key.js";
import { removeWorkspace, type WorkspaceRemovalDeps } from "./adapters/core/workspace-removal.js";
import { TokenCounter } from "./tokens/token-counter.js";
import type { Surface } from "./contracts/types.js";

export interface SurfaceDeps {
  readonly config: Config;
  readonly service: RunningAgentService;
  readonly governance: Governance;
  readonly store: KeyValueStore;
  readonly logger: Logger;
  readonly model: ModelDescription;
  /** The ops port, where Slack's HTTP mode mounts its endpoint and an app installed in several workspaces its install pages. */
  readonly http?: Pick<OpsServer, "mount" | "unmount" | "mountPrefix">;
  /** What a workspace that removed the bot (an uninstall, a Discord server leaving) ends and deletes. */
  readonly removal: WorkspaceRemovalDeps;
  /** Seals what must be secret at rest (Slack's installations), kept outside the store. */
  readonly approvalKey: ApprovalKey;
  readonly onConnection: (surface: Surface, state: "up" | "down", reason?: string) => void;
  readonly io: AppIo;
  /** The process's schedules, for the core's schedule commands. */
  readonly schedules: CoreDeps["schedules"];
  /** MODEL_PRICES as the core's usage command reads them. */
  readonly prices: CoreDeps["prices"];
  /** The console shows an operator's notices from the moment it exists. */
  readonly showNotices?: (show: (line: string) => void) => void;
}

/** The console's streams and name (tests give their own). */
export interface AppIo {
  /** Console mode reads from it; defaults to process.stdin. */
  readonly input?: NodeJS.ReadableStream;
  /** Console mode writes to it; defaults to process.stdout. */
  readonly output?: NodeJS.WritableStream;
  /** Console mode's requester name; defaults to the OS user name. */
  readonly username?: string;
}

export interface OpenedSurface {
  readonly surface: AttachedSurface;
  /** Resolves when the surface ended by itself (the console session closed). */
  readonly ended?: Promise<void>;
}

interface SurfaceEntry {
  readonly name: Surface;
  configured(config: Config): boolean;
  open(deps: SurfaceDeps, core: CoreDeps): Promise<OpenedSurface>;
}

// A worker process takes no events: it only runs what the queue hands it.
const SURFACES: readonly SurfaceEntry[] = [
  {
    name: "slack",
    configured: (config) => config.slack !== undefined,
    async open({ config, logger, http, onConnection, store, approvalKey, removal }, core) {
      const { createSlackSurface } = await import("./adapters/slack/slack-adapter.js");
      const surface = createSlackSurface({
        config: config.slack!,
        logger,
        counter: TokenCounter.forModel(config.model.name),
        takeEvents: config.role !== "worker",
        ...(http ? { httpMount: http } : {}),
        onConnection: (state, reason) => onConnection("slack", state, reason),
        installs: {
          store,
          sealingKey: approvalKey,
          ...(http ? { pages: http } : {}),
          removed: ({ id, teams, key, reason }) =>
            removeWorkspace(removal, { surface: "slack", workspace: id, workspaces: teams, key, reason }),
          // A workspace that comes back starts clean: its earlier data's deletion, if still waiting, is carried out now.
          installed: async (key) => removal.erasures?.bringForward(key),
        },
      });
      return { surface: attach(surface, core) };
    },
  },
  {
    name: "discord",
    configured: (config) => config.discord !== undefined,
    async open({ config, logger, onConnection, removal }, core) {
      const { createDiscordSurface } = await import("./adapters/discord/discord-adapter.js");
      const surface = createDiscordSurface({
        config: config.discord!,
        logger,
        messageContent: config.discord!.messageContent,
        takeEvents: config.role !== "worker",
        onConnection: (state, reason) => onConnection("discord", state, reason),
        removed: (guild) => removeWorkspace(removal, { surface: "discord", workspace: guild.id, key: guild.id, reason: "guildDelete" }),
        joined: async (guild) => removal.erasures?.bringForward(guild.id),
      });
      return { surface: attach(surface, core) };
    },
  },
  {
    name: "console",
    configured: (config) => config.slack === undefined && config.discord === undefined,
    async open({ service, logger, model, io, showNotices }, core) {
      const terminal = createConsoleSurface({ service, model, logger, ...io });
      showNotices?.((line) => terminal.notice(line));
      return { surface: attach(terminal, core), ended: terminal.closed };
    },
  },
];

/** The names of the surfaces this configuration runs, before any is built (for readiness). */
export function configuredSurfaces(config: Config): readonly Surface[] {
  return SURFACES.filter((entry) => entry.configured(config)).map((entry) => entry.name);
}

/** Builds and attaches each configured surface; `opened` is told of each as soon as it exists, so a later failure still closes it. */
export async function openSurfaces(deps: SurfaceDeps, opened: (surface: OpenedSurface) => void): Promise<void> {
  const core: CoreDeps = {
    service: deps.service,
    governance: deps.governance,
    store: deps.store,
    logger: deps.logger,
    ...(deps.schedules ? { schedules: deps.schedules } : {}),
    ...(deps.prices ? { prices: deps.prices } : {}),
  };
  for (const entry of SURFACES) {
    if (!entry.configured(deps.config)) continue;
    opened(await entry.open(deps, core));
  }
}
