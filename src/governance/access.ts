// Who may use the bot where: pure decisions over the settings. Block wins over allow; an
// empty allow list allows all; admins may use it anywhere.
import type { Surface, TaskOrigin } from "../agent/types.js";
import type { Settings } from "./settings-schema.js";

/** The person and the place of one request, as the settings talk about them. */
export interface Subject {
  readonly surface: Surface;
  readonly userId: string;
  /** Discord role ids of the person in that server; empty elsewhere. */
  readonly roles: readonly string[];
  /** Undefined in the console. */
  readonly channelId: string | undefined;
  readonly dm: boolean;
}

export type AccessRefusal = "blocked_user" | "blocked_channel" | "user_not_allowed" | "channel_not_allowed" | "dms_off";

export type AccessDecision =
  | { readonly kind: "allowed"; readonly admin: boolean }
  | { readonly kind: "refused"; readonly reason: AccessRefusal };

/** Slack DM channel ids start with D; Discord DMs have no guild. */
export function subjectOf(origin: TaskOrigin, roles: readonly string[] = []): Subject {
  const channelId = origin.place.channel;
  const dm =
    origin.surface === "slack"
      ? channelId?.startsWith("D") === true
      : origin.surface === "discord"
        ? origin.place.channelKind === "dm" || origin.place.guild === undefined
        : false;
  return { surface: origin.surface, userId: origin.requester.id, roles, channelId, dm };
}

export function isAdmin(settings: Settings, surface: Surface, userId: string): boolean {
  return settings.access.admins[surface].includes(userId);
}

export function decideAccess(settings: Settings, subject: Subject): AccessDecision {
  if (isAdmin(settings, subject.surface, subject.userId)) return { kind: "allowed", admin: true };
  const { allow, block, dms } = settings.access;
  if (block.users.includes(subject.userId) || subject.roles.some((role) => block.roles.includes(role)))
    return { kind: "refused", reason: "blocked_user" };
  if (subject.channelId !== undefined && block.channels.includes(subject.channelId)) return { kind: "refused", reason: "blocked_channel" };
  if (subject.dm && !dms) return { kind: "refused", reason: "dms_off" };
  const peopleListed = allow.users.length > 0 || allow.roles.length > 0;
  if (peopleListed && !allow.users.includes(subject.userId) && !subject.roles.some((role) => allow.roles.includes(role)))
    return { kind: "refused", reason: "user_not_allowed" };
  // A DM is governed by `dms`, not by the channel lists.
  if (!subject.dm && allow.channels.length > 0 && (subject.channelId === undefined || !allow.channels.includes(subject.channelId))) {
    return subject.surface === "console" ? { kind: "allowed", admin: false } : { kind: "refused", reason: "channel_not_allowed" };
  }
  return { kind: "allowed", admin: false };
}
