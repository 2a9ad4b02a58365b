// Which installation of the app serves a Slack event, a click or a stored place: the workspace's
// own, or, for an Enterprise Grid org-wide install, the org's (every workspace of the org shares
// its token). One key names an installation in the store, in locks and in logs; it holds no secret.
import type { InstallationQuery } from "@slack/oauth";

export interface WorkspaceRef {
  /** The workspace; absent only where Slack names the org alone. */
  readonly team?: string;
  readonly enterprise?: string;
  /** An org-wide install: the org's installation serves every workspace of it. */
  readonly orgInstall: boolean;
}

/** `E:<enterprise>` for an org-wide install, `T:<team>` otherwise; undefined when the ref names neither. */
export function installationKey(ref: WorkspaceRef): string | undefined {
  if (ref.orgInstall) return ref.enterprise ? `E:${ref.enterprise}` : undefined;
  return ref.team ? `T:${ref.team}` : undefined;
}

/** What Bolt and @slack/oauth ask the installation store for. */
export function refOfQuery(query: InstallationQuery<boolean>): WorkspaceRef {
  return {
    orgInstall: query.isEnterpriseInstall,
    ...(query.teamId ? { team: query.teamId } : {}),
    ...(query.enterpriseId ? { enterprise: query.enterpriseId } : {}),
  };
}

/** Bolt's context of an event or a click (its authorize source). */
export function refOfContext(context: { teamId?: string; enterpriseId?: string; isEnterpriseInstall?: boolean }): WorkspaceRef {
  return {
    orgInstall: context.isEnterpriseInstall === true,
    ...(context.teamId ? { team: context.teamId } : {}),
    ...(context.enterpriseId ? { enterprise: context.enterpriseId } : {}),
  };
}
