// What happens once a workspace (a Slack install, an Enterprise Grid org, a Discord server) removed
// the bot, the same on every surface: its queued and paused runs end, shown nowhere (nothing can be
// posted there any more); its schedules end, so no slot fires there again; the audit keeps one line
// that it was removed; and the deletion of its data is booked for UNINSTALL_RETENTION_DAYS later
// (at once by default: workspace-erasures.ts). A run already in progress is not stopped (its posts
// fail, its platform access is gone), but it still writes its history, record and facts as it
// ends: when the deletion comes before that can be over, a second one is booked for then. The
// platform side has already dropped its access (a Slack installation). Never throws: a step that
// fails is logged and the next one still runs.
import type { Surface } from "../../contracts/types.js";
import type { AuditLog } from "../../governance/audit-log.js";
import type { Logger } from "../../logger.js";
import type { EndedRuns } from "../../runs/service/workspace-runs.js";
import type { ScheduleBook } from "../../schedules/schedule-book.js";
import type { WorkspaceErasures } from "./workspace-erasures.js";

export interface RemovedWorkspace {
  readonly surface: Surface;
  /** The workspace's (or server's, or org's) id, as the audit line names it. */
  readonly workspace: string;
  /** The workspaces whose runs, schedules and data go, as origins' scopes name them: an org's are all of its own; default `[workspace]`. */
  readonly workspaces?: readonly string[];
  /** The installation's key (`T:…`, `E:…`), or the server's id. */
  readonly key: string;
  /** What the platform said (app_uninstalled, tokens_revoked, guildDelete). */
  readonly reason: string;
}

export interface WorkspaceRemovalDeps {
  readonly audit: Pick<AuditLog, "append">;
  readonly schedules?: Pick<ScheduleBook, "endInWorkspace">;
  readonly runs?: { endWorkspaceRuns(surface: Surface, workspaces: readonly string[]): Promise<EndedRuns> };
  readonly erasures?: Pick<WorkspaceErasures, "book" | "bringForward">;
  /** UNINSTALL_RETENTION_DAYS, in ms. */
  readonly retentionMs?: number;
  /** How long after the removal a run in progress then may still write as it ends (its deadline, its last writes and facts). */
  readonly runsEndWithinMs?: number;
  readonly clock?: () => number;
  readonly logger: Logger;
}

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? "" : "s"}`;

export async function removeWorkspace(deps: WorkspaceRemovalDeps, removed: RemovedWorkspace): Promise<void> {
  const { surface, workspace, key, reason } = removed;
  const { logger } = deps;
  const workspaces = removed.workspaces ?? [workspace];
  const removedAt = (deps.clock ?? Date.now)();
  let runsEnded: EndedRuns = { queued: 0, paused: 0 };
  try {
    runsEnded = (await deps.runs?.endWorkspaceRuns(surface, workspaces)) ?? runsEnded;
  } catch (error) {
    logger.error({ err: error, surface, workspace }, "could not end the runs of a removed workspace");
  }
  let schedulesEnded = 0;
  for (const member of workspaces) {
    try {
      schedulesEnded += (await deps.schedules?.endInWorkspace(surface, member, `the workspace removed the bot (${reason})`)) ?? 0;
    } catch (error) {
      logger.error({ err: error, surface, workspace: member }, "could not end the schedules of a removed workspace");
    }
  }
  const retentionMs = deps.retentionMs ?? 0;
  try {
    await deps.audit.append({
      kind: "workspace_removed",
      runId: key,
      conversationKey: `${surface}:${workspace}`,
      surface,
      place: { workspace },
      requester: { id: surface },
      reason: `${reason}; ${plural(schedulesEnded, "schedule")} ended${retentionMs > 0 ? `; data deleted after ${plural(Math.round(retentionMs / 86_400_000), "day")}` : ""}`,
    });
  } catch (error) {
    logger.error({ err: error, surface, workspace }, "could not audit a removed workspace");
  }
  logger.info({ surface, workspace, workspaces, schedulesEnded, ...runsEnded }, "a removed workspace's runs and schedules ended");
  for (const dueAt of erasureTimes(removedAt, retentionMs, deps.runsEndWithinMs ?? 0))
    for (const member of workspaces) await deps.erasures?.book({ surface, workspace: member, dueAt, key });
}

/**
 * Pure: when a removed workspace's data is deleted: after the retention, and again once its runs in progress have ended
 * if that is later. The later one comes first, so it is booked first: a process killed between the two bookings leaves
 * the deletion that nothing written afterwards outlives.
 */
export function erasureTimes(removedAt: number, retentionMs: number, runsEndWithinMs: number): number[] {
  const due = removedAt + retentionMs;
  const afterRuns = removedAt + runsEndWithinMs;
  return afterRuns > due ? [afterRuns, due] : [due];
}
