// What a workspace that removed the bot leaves behind, deleted: every conversation it had (its
// facts, history, stored files and run records, as `forget` deletes one, and what its recorded runs
// keep under their ids: the messages' records, where approval cards were posted; the mark that
// replies in its thread are for the bot), its usage
// and limit counters (and its channels' and people's), its 👍 / 👎, its audit entries but the lines that
// it was removed, and its people's connections to MCP servers. The same on every
// surface; idempotent (a second erasure finds nothing), so one cut short is simply done again.
import type { Surface } from "../../contracts/types.js";
import type { AuditLog } from "../../governance/audit-log.js";
import type { Logger } from "../../logger.js";
import type { FeedbackBook } from "../../memory/feedback.js";
import type { ConversationEntry, RecordedRun } from "../../memory/run-records/record-store.js";
import type { ErasedUsage } from "../../memory/run-records/usage-counters.js";
import { isInWorkspace, type WorkspaceConversations } from "../../memory/workspace-conversations.js";
import type { ServiceMemory } from "../../runs/api/agent-service.js";
import type { ConnectionStore } from "../../tools/mcp/auth/connection-store.js";

export interface WorkspaceErasureDeps {
  /** `forget` of the service the surfaces talk to: with run records on, it deletes the conversation's records too. */
  readonly memory: Pick<ServiceMemory, "forget">;
  readonly conversations: WorkspaceConversations;
  /** The run records' conversations, newest first (those of data kept before conversations were listed per workspace). */
  readonly recorded?: (limit: number, before?: number) => Promise<ConversationEntry[]>;
  /** The recorded runs of a conversation, read before its records go. */
  readonly runsOf?: (conversationKey: string) => Promise<readonly RecordedRun[]>;
  /** Deletes what the runs keep under their own ids (the messages' records, where their approval cards are). */
  readonly forgetRuns?: (runs: readonly RecordedRun[]) => Promise<void>;
  /** Deletes the mark that the bot works in the conversation's thread (core/bot-threads.ts). */
  readonly unmarkThread?: (conversationKey: string) => Promise<void>;
  /** Deletes the usage and limit counters of the workspace and of the channels and people its runs name. */
  readonly eraseCounters?: (erased: ErasedUsage) => Promise<void>;
  readonly audit: Pick<AuditLog, "erase">;
  /** The 👍 / 👎 given in the workspace, and its totals. */
  readonly feedback?: Pick<FeedbackBook, "erase">;
  /** People's connections to MCP servers behind OAuth, when the bot has such servers. */
  readonly connections?: Pick<ConnectionStore, "forgetWorkspace">;
  readonly logger: Logger;
}

export interface Erased {
  readonly conversations: number;
  readonly auditEntries: number;
  readonly connections: number;
  readonly votes: number;
}

const RECORDED_PAGE = 1_000;

/** Every conversation of the workspace the run records still name. */
async function recordedIn(deps: WorkspaceErasureDeps, surface: Surface, workspace: string): Promise<string[]> {
  if (!deps.recorded) return [];
  const found: string[] = [];
  for (let before: number | undefined; ; ) {
    const page = await deps.recorded(RECORDED_PAGE, before);
    found.push(...page.map((entry) => entry.conversationKey).filter((key) => isInWorkspace(key, surface, workspace)));
    if (page.length < RECORDED_PAGE) return found;
    before = page.at(-1)!.lastRunAt;
  }
}

/** Rejects when the store fails: the erasure is then tried again (see workspace-erasures.ts). */
export async function eraseWorkspace(deps: WorkspaceErasureDeps, surface: Surface, workspace: string): Promise<Erased> {
  const listed = await deps.conversations.list(surface, workspace);
  const conversations = [...new Set([...listed, ...(await recordedIn(deps, surface, workspace))])];
  const channels = new Set<string>();
  const people = new Set<string>();
  for (const conversationKey of conversations) {
    const runs = (await deps.runsOf?.(conversationKey)) ?? [];
    for (const run of runs) {
      if (run.channel) channels.add(run.channel);
      if (run.requester) people.add(run.requester);
    }
    await deps.forgetRuns?.(runs);
    await deps.memory.forget(conversationKey);
    await deps.unmarkThread?.(conversationKey);
  }
  await deps.eraseCounters?.({ surface, workspace, channels: [...channels], people: [...people] });
  await deps.conversations.unlist(surface, workspace, listed);
  const auditEntries = await deps.audit.erase(
    (entry) => entry.kind !== "workspace_removed" && entry.surface === surface && isInWorkspace(entry.conversationKey, surface, workspace),
  );
  const connections = (await deps.connections?.forgetWorkspace(surface, workspace)) ?? 0;
  const votes = (await deps.feedback?.erase({ surface, workspace })) ?? 0;
  const erased = { conversations: conversations.length, auditEntries, connections, votes };
  deps.logger.info({ surface, workspace, ...erased }, "a removed workspace's data is deleted");
  return erased;
}
