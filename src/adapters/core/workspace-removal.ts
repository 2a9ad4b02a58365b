// What happens once a workspace (a Slack install, a Discord server) removed the bot, the same on
// every surface: its schedules end, so no slot fires there again, and the audit keeps one line
// that it was removed. The platform side has already dropped its access (a Slack installation).
// Never throws: a step that fails is logged and the next one still runs.
import type { Surface } from "../../contracts/types.js";
import type { AuditLog } from "../../governance/audit-log.js";
import type { Logger } from "../../logger.js";
import type { ScheduleBook } from "../../schedules/schedule-book.js";

export interface RemovedWorkspace {
  readonly surface: Surface;
  /** The workspace's (or server's) id, as origins' scopes name it. */
  readonly workspace: string;
  /** The installation's key (`T:…`, `E:…`), or the server's id. */
  readonly key: string;
  /** What the platform said (app_uninstalled, tokens_revoked, guildDelete). */
  readonly reason: string;
}

export interface WorkspaceRemovalDeps {
  readonly audit: Pick<AuditLog, "append">;
  readonly schedules?: Pick<ScheduleBook, "endInWorkspace">;
  readonly logger: Logger;
}

export async function removeWorkspace(deps: WorkspaceRemovalDeps, removed: RemovedWorkspace): Promise<void> {
  const { surface, workspace, key, reason } = removed;
  let schedulesEnded = 0;
  try {
    schedulesEnded = (await deps.schedules?.endInWorkspace(surface, workspace, `the workspace removed the bot (${reason})`)) ?? 0;
  } catch (error) {
    deps.logger.error({ err: error, surface, workspace }, "could not end the schedules of a removed workspace");
  }
  try {
    await deps.audit.append({
      kind: "workspace_removed",
      runId: key,
      conversationKey: `${surface}:${workspace}`,
      surface,
      place: { workspace },
      requester: { id: surface },
      reason: `${reason}; ${schedulesEnded} schedule${schedulesEnded === 1 ? "" : "s"} ended`,
    });
  } catch (error) {
    deps.logger.error({ err: error, surface, workspace }, "could not audit a removed workspace");
  }
  deps.logger.info({ surface, workspace, schedulesEnded }, "a removed workspace's schedules ended");
}
