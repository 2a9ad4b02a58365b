// What a workspace that removed the bot (a Slack uninstall, a Discord server the bot left) sets
// off, as the process wires it: its runs and schedules end at once, the audit keeps one line, and
// the deletion of its data is booked for UNINSTALL_RETENTION_DAYS later, in the store, carried out
// by whichever process looks first (adapters/core/workspace-removal.ts, workspace-erasures.ts).
import { unmarkBotThread } from "./adapters/core/bot-threads.js";
import type { AttachedSurface } from "./adapters/core/attach.js";
import { eraseWorkspace } from "./adapters/core/workspace-erasure.js";
import { createWorkspaceErasures, type WorkspaceErasures } from "./adapters/core/workspace-erasures.js";
import type { WorkspaceRemovalDeps } from "./adapters/core/workspace-removal.js";
import type { Config } from "./config.js";
import type { AuditLog } from "./governance/audit-log.js";
import type { Logger } from "./logger.js";
import { countersNow } from "./governance/limits.js";
import type { RecordedRun, RunRecordStore } from "./memory/run-records/record-store.js";
import { type ErasedUsage, eraseUsage } from "./memory/run-records/usage-counters.js";
import type { KeyValueStore } from "./memory/types.js";
import { createWorkspaceConversations } from "./memory/workspace-conversations.js";
import type { ResourceStack } from "./resource-stack.js";
import type { ApprovalKey } from "./runs/approvals/approval-key.js";
import type { RunningAgentService } from "./runs/service/create-agent-service.js";
import type { ScheduleBook } from "./schedules/schedule-book.js";
import { createConnectionStore } from "./tools/mcp/auth/connection-store.js";
import { createSealedBox } from "./tools/mcp/auth/sealed-box.js";

const DAY_MS = 24 * 60 * 60_000;
/** After a run's deadline: its answer's writes (retried while the store blinks) and its facts' model call. */
const LAST_WRITES_MS = 5 * 60_000;

export interface ProcessRemovals {
  readonly removal: WorkspaceRemovalDeps;
  readonly erasures: WorkspaceErasures;
}

export function openWorkspaceRemovals(deps: {
  readonly config: Config;
  readonly store: KeyValueStore;
  /** The service the surfaces talk to: its `forget` deletes a conversation's run records too. */
  readonly service: RunningAgentService;
  readonly audit: AuditLog;
  readonly records: RunRecordStore;
  readonly book: Pick<ScheduleBook, "endInWorkspace">;
  /** Seals people's connections; the erasure only deletes them, whether or not MCP servers are configured now. */
  readonly approvalKey: ApprovalKey;
  /** The surfaces attached (after this is made): each forgets where a removed workspace's approval cards were posted. */
  readonly surfaces: () => readonly AttachedSurface[];
  readonly logger: Logger;
  readonly stack: ResourceStack;
}): ProcessRemovals {
  const { store, service, audit, logger } = deps;
  const erasure = {
    memory: service.memory,
    conversations: createWorkspaceConversations(store),
    recorded: (limit: number, before?: number) => deps.records.conversations(limit, before),
    runsOf: (conversationKey: string) => deps.records.runsOf(conversationKey),
    async forgetRuns(runs: readonly RecordedRun[]) {
      await service.forgetMessages(runs.map((run) => run.runId));
      for (const surface of deps.surfaces()) await surface.forgetApprovalMessages(runs);
    },
    unmarkThread: (conversationKey: string) => unmarkBotThread(store, conversationKey),
    async eraseCounters(erased: ErasedUsage) {
      const now = Date.now();
      await eraseUsage(store, erased, now);
      for (const key of countersNow(erased.surface, erased.workspace, erased.people, erased.channels, now)) await store.delete(key);
    },
    audit,
    feedback: service.feedback,
    connections: createConnectionStore(store, createSealedBox(deps.approvalKey), Date.now),
    logger,
  };
  const erasures = createWorkspaceErasures({
    store,
    logger,
    erase: (surface, workspace) => eraseWorkspace(erasure, surface, workspace),
  });
  deps.stack.defer("runs", "the erasures of removed workspaces", () => erasures.close());
  return {
    erasures,
    removal: {
      audit,
      schedules: deps.book,
      runs: service,
      erasures,
      retentionMs: deps.config.uninstallRetentionDays * DAY_MS,
      runsEndWithinMs: deps.config.guards.runTimeoutMs + LAST_WRITES_MS,
      logger,
    },
  };
}
