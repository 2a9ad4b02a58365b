// Slack telling the app it is gone from a workspace or an org: app_uninstalled, or tokens_revoked
// naming the bot (removal-events.ts). The installation goes first, so no call is made with it
// again; then the rest of the bot is told which workspaces went with it: the one, or every
// workspace of an org-wide install (org-workspaces.ts), whose list goes too.
import type { App } from "@slack/bolt";
import type { Logger } from "../../../logger.js";
import type { OrgWorkspaces } from "./org-workspaces.js";
import { removalOf, type SlackRemoval } from "./removal-events.js";
import type { SlackInstalls } from "./slack-installs.js";
import { installationKey, refOfContext } from "./workspace-ref.js";

export interface RemovalListenerDeps {
  readonly installs: Pick<SlackInstalls, "remove">;
  readonly orgs: OrgWorkspaces;
  /** Must not throw. */
  readonly removed?: (removal: SlackRemoval) => Promise<void>;
  readonly logger: Logger;
}

export function listenForRemoval(bolt: App, deps: RemovalListenerDeps): void {
  const { orgs, logger } = deps;
  const remove = async (body: unknown, context: Parameters<typeof refOfContext>[0]) => {
    const removal = removalOf(body, refOfContext(context));
    const key = removal && installationKey(removal.workspace);
    if (!removal || !key) return;
    const { workspace, reason } = removal;
    const had = await deps.installs.remove(workspace);
    logger.info({ ...workspace, reason, hadInstallation: had }, "a workspace removed the app");
    const org = workspace.orgInstall ? workspace.enterprise : undefined;
    const teams = new Set(org ? await orgs.list(org) : []);
    if (workspace.team) teams.add(workspace.team);
    await deps.removed?.({ key, id: org ?? workspace.team ?? key, teams: [...teams], reason });
    if (org) await orgs.clear(org);
  };
  bolt.event("app_uninstalled", ({ body, context }) => remove(body, context));
  bolt.event("tokens_revoked", ({ body, context }) => remove(body, context));
}
