// Who may use the bot where: pure decisions over the settings. Block wins over allow; an
// empty allow list allows all; admins may use it anywhere. A thread is governed by its parent
// channel (and by its own entry, when it has one).
import type { RequestScope, Surface, TaskOrigin } from "../contracts/types.js";
import type { Settings } from "./settings-schema.js";

/** The person and the place of one request, as the settings talk about them. */
export interface Subject {
  readonly surface: Surface;
  /** The Slack workspace or Discord server asked in; none in the console and in a Discord DM. */
  readonly workspace?: string;
  readonly userId: string;
  /** Discord role ids of the person in that server; empty elsewhere. */
  readonly roles: readonly string[];
  /** The channel that governs: a thread's parent. Undefined in the console. */
  readonly channelId: string | undefined;
  /** The thread or forum post asked in, when it has an id of its own. */
  readonly threadId: string | undefined;
  readonly dm: boolean;
  /** The platform names them an admin of the workspace (see RequestScope). */
  readonly workspaceAdmin?: boolean;
}

export type AccessRefusal = "blocked_user" | "blocked_channel" | "user_not_allowed" | "channel_not_allowed" | "dms_off";

export type AccessDecision =
  | { readonly kind: "allowed"; readonly admin: boolean }
  | { readonly kind: "refused"; readonly reason: AccessRefusal };

/** A place nothing is known about: no channel list admits it, and it is not a DM. */
const UNKNOWN_SCOPE: RequestScope = { dm: false, roles: [] };

/** Records stored before scopes existed get theirs from their surface's codec when they are loaded (src/runs). */
export const scopeOf = (origin: TaskOrigin): RequestScope => origin.scope ?? UNKNOWN_SCOPE;

export function subjectOf(origin: TaskOrigin): Subject {
  const scope = scopeOf(origin);
  return {
    surface: origin.surface,
    ...(scope.workspace === undefined ? {} : { workspace: scope.workspace }),
    userId: origin.requester.id,
    roles: scope.roles,
    channelId: scope.channel,
    threadId: scope.thread,
    dm: scope.dm,
    ...(scope.workspaceAdmin ? { workspaceAdmin: true } : {}),
  };
}

/** Named in the settings; where they name no admin of the surface there, the workspace's own admins as the platform names them. */
export function isAdmin(settings: Settings, surface: Surface, userId: string, workspaceAdmin = false): boolean {
  const named = settings.access.admins[surface];
  return named.includes(userId) || (named.length === 0 && workspaceAdmin);
}

export function decideAccess(settings: Settings, subject: Subject): AccessDecision {
  if (isAdmin(settings, subject.surface, subject.userId, subject.workspaceAdmin)) return { kind: "allowed", admin: true };
  const { allow, block, dms } = settings.access;
  if (block.users.includes(subject.userId) || subject.roles.some((role) => block.roles.includes(role)))
    return { kind: "refused", reason: "blocked_user" };
  // A blocked channel's threads are blocked with it; a thread can be blocked on its own too.
  const places = [subject.channelId, subject.threadId].filter((id): id is string => id !== undefined);
  if (places.some((id) => block.channels.includes(id))) return { kind: "refused", reason: "blocked_channel" };
  if (subject.dm && !dms) return { kind: "refused", reason: "dms_off" };
  const peopleListed = allow.users.length > 0 || allow.roles.length > 0;
  if (peopleListed && !allow.users.includes(subject.userId) && !subject.roles.some((role) => allow.roles.includes(role)))
    return { kind: "refused", reason: "user_not_allowed" };
  // A DM is governed by `dms`, not by the channel lists.
  if (!subject.dm && allow.channels.length > 0 && !places.some((id) => allow.channels.includes(id))) {
    return subject.surface === "console" ? { kind: "allowed", admin: false } : { kind: "refused", reason: "channel_not_allowed" };
  }
  return { kind: "allowed", admin: false };
}
