// Slack telling the app it is gone from a workspace: app_uninstalled, or tokens_revoked naming a
// bot token (the app's own; a person's revoked user token changes nothing here). Pure; the body is
// untrusted and checked with zod.
import { z } from "zod";
import type { WorkspaceRef } from "./workspace-ref.js";

const Body = z.object({
  event: z.object({
    type: z.string(),
    tokens: z.object({ bot: z.array(z.string()).optional() }).optional(),
  }),
});

export interface Removal {
  readonly workspace: WorkspaceRef;
  readonly reason: "app_uninstalled" | "tokens_revoked";
}

/** A removal as the rest of the bot is told of it, once the installation is deleted. */
export interface SlackRemoval {
  /** The installation's key (`T:…`, `E:…`). */
  readonly key: string;
  /** The workspace, or the org of an org-wide install. */
  readonly id: string;
  /** Every workspace that goes with it: the one, or an org's (as their events came). */
  readonly teams: readonly string[];
  readonly reason: Removal["reason"];
}

/** The workspace to remove, or undefined when the event removes nothing (a user token revoked, a body without a workspace). */
export function removalOf(body: unknown, workspace: WorkspaceRef): Removal | undefined {
  const parsed = Body.safeParse(body);
  if (!parsed.success || (!workspace.team && !workspace.enterprise)) return undefined;
  const { type, tokens } = parsed.data.event;
  if (type === "app_uninstalled") return { workspace, reason: "app_uninstalled" };
  if (type === "tokens_revoked" && (tokens?.bot?.length ?? 0) > 0) return { workspace, reason: "tokens_revoked" };
  return undefined;
}
