// Who administers a workspace the app is installed in, as Slack says (users.info: is_admin,
// is_owner, is_primary_owner): the workspace's admins by default, where the settings file names
// none (governance/access.ts). The person's spot is marked before it reaches the core. Asked once
// per person per ten minutes in this process; an answer that fails or does not say is no, never yes.
import type { webApi } from "@slack/bolt";
import { z } from "zod";
import type { TaskOrigin } from "../../../contracts/types.js";
import type { Logger } from "../../../logger.js";
import type { Spot } from "../../core/spot.js";

export interface WorkspaceAdmins {
  /** `spot` with `workspaceAdmin` in its scope when Slack names its person an admin or owner there. Never rejects. */
  mark<S extends Spot>(spot: S): Promise<S>;
}

const KEPT_MS = 10 * 60_000;
const REMEMBERED = 10_000;
const UserInfo = z.object({
  user: z.object({ is_admin: z.boolean().optional(), is_owner: z.boolean().optional(), is_primary_owner: z.boolean().optional() }),
});

export function createWorkspaceAdmins(
  clientAt: (origin: TaskOrigin) => webApi.WebClient,
  logger: Logger,
  clock: () => number = Date.now,
): WorkspaceAdmins {
  const known = new Map<string, { readonly admin: boolean; readonly at: number }>();

  async function isAdmin(origin: TaskOrigin): Promise<boolean> {
    const key = `${origin.scope?.workspace ?? ""}\n${origin.requester.id}`;
    const kept = known.get(key);
    if (kept && clock() - kept.at < KEPT_MS) return kept.admin;
    let admin = false;
    try {
      const info = UserInfo.safeParse(await clientAt(origin).users.info({ user: origin.requester.id }));
      admin =
        info.success && (info.data.user.is_admin === true || info.data.user.is_owner === true || info.data.user.is_primary_owner === true);
    } catch (error) {
      logger.warn({ err: error, user: origin.requester.id }, "could not ask Slack whether a person administers the workspace; taken as no");
      return false;
    }
    known.delete(key);
    known.set(key, { admin, at: clock() });
    if (known.size > REMEMBERED) known.delete(known.keys().next().value as string);
    return admin;
  }

  return {
    async mark(spot) {
      const scope = spot.origin.scope;
      if (!scope?.workspace || !(await isAdmin(spot.origin))) return spot;
      return { ...spot, origin: { ...spot.origin, scope: { ...scope, workspaceAdmin: true } } };
    },
  };
}
