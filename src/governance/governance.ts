// Governance for one process: the settings file in force (watched), the run policy the runner
// and the chat commands ask, who may do what (authority.ts), and the texts of the `settings`
// and `audit` commands. app.ts builds it.
import type { Logger } from "../logger.js";
import type { Surface, TaskOrigin } from "../contracts/types.js";
import { isInWorkspace } from "../memory/workspace-conversations.js";
import type { KeyValueStore } from "../memory/types.js";
import { createAuditLog } from "./audit-log.js";
import { createAuthority, type Approvers, type Authority } from "./authority.js";
import type { ConcurrentMessages } from "./channel-settings.js";
import { auditText, DEMO_MODEL_TEXT, settingsText, type LinkStyle } from "./command-text.js";
import { createRunPolicy, type RunPolicy } from "./run-policy.js";
import { settingsPath } from "./settings-file.js";
import { openSettings, type SettingsSource } from "./settings-source.js";

/** What the chat commands show from the settings file. */
export interface GovernanceCommands {
  /** The latest audit entries (of one workspace with `within`); who may see them is the authority's to say. */
  audit(links: LinkStyle, within?: { readonly surface: Surface; readonly workspace: string }): Promise<string>;
  /** The effective settings where `origin` asks, with the asker's limits left. */
  settings(origin: TaskOrigin): Promise<string>;
}

export interface Governance {
  readonly runPolicy: RunPolicy;
  readonly authority: Authority;
  readonly commands: GovernanceCommands;
  readonly source: SettingsSource;
  /** Stops watching the file and waits for audit entries still being written. */
  close(): Promise<void>;
}

export const AUDIT_SHOWN = 20;

/** Reads BOT_SETTINGS (or bot.settings.json); problems come back as lines naming the file and the field. */
export async function loadSettings(
  configured: string | undefined,
  logger: Logger,
): Promise<{ kind: "ok"; source: SettingsSource } | { kind: "failed"; lines: readonly string[] }> {
  const opened = await openSettings(settingsPath(configured), logger);
  if (opened.kind === "ok") return opened;
  return { kind: "failed", lines: opened.problems.map((problem) => `Settings error in ${opened.path}: ${problem}`) };
}

export function createGovernance(deps: {
  readonly source: SettingsSource;
  readonly store: KeyValueStore;
  readonly logger: Logger;
  /** OPENAI_MODEL; `demo` when the offline demo model answers instead. */
  readonly model: string;
  readonly demo?: boolean;
  /** AGENT_MAX_STEPS, the steps a channel gets unless its settings say otherwise. */
  readonly maxSteps: number;
  /** CONCURRENT_MESSAGES, what a channel does unless its settings say otherwise (default: queue). */
  readonly concurrentMessages?: ConcurrentMessages;
  readonly approvers?: Approvers;
  readonly clock?: () => number;
}): Governance {
  const { source, store, logger } = deps;
  const clock = deps.clock ?? Date.now;
  const runPolicy = createRunPolicy({ settings: source, store, audit: createAuditLog(store, clock), logger, clock });
  return {
    runPolicy,
    authority: createAuthority({ approvers: deps.approvers ?? {}, settings: source }),
    source,
    commands: {
      audit: async (links, within) =>
        auditText(
          await runPolicy.audit.list({
            limit: AUDIT_SHOWN,
            ...(within
              ? {
                  match: (entry) =>
                    entry.surface === within.surface && isInWorkspace(entry.conversationKey, within.surface, within.workspace),
                }
              : {}),
          }),
          links,
        ),
      async settings(origin) {
        const left = await runPolicy.allowances(origin).catch((error: unknown) => {
          logger.warn({ err: error }, "could not read the limits left (store failed)");
          return undefined;
        });
        return settingsText({
          run: runPolicy.runSettings(origin),
          defaultModel: deps.demo ? DEMO_MODEL_TEXT : deps.model,
          demo: deps.demo === true,
          defaultMaxSteps: deps.maxSteps,
          defaultConcurrentMessages: deps.concurrentMessages ?? "queue",
          allowances: left,
          admin: runPolicy.exempt(origin),
          now: clock(),
        });
      },
    },
    async close() {
      source.close();
      await runPolicy.observer.settled();
    },
  };
}
