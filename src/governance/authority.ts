// Who may do what, on every surface: approve, deny and Stop a run, see the feedback, the audit
// log and usage, other people's schedules, and wipe a conversation's memory. Everything that
// decides one of these asks here; no other place keeps an approver list or an admin check.
//
// | action                          | who                                                                 |
// | ------------------------------- | ------------------------------------------------------------------- |
// | decide (approve, deny), stop    | the requester (a schedule's owner), the surface's approvers, admins |
// | feedback (the listing)          | approvers and admins                                                |
// | audit, usage, others_schedules  | admins                                                              |
// | memory, forget                  | anyone allowed in the conversation (asked first, by the caller);    |
// |                                 | forget only admins when the settings say `access.forget: "admins"`  |
import type { Person, Surface } from "../contracts/types.js";
import type { Config } from "../config.js";
import type { SettingsSource } from "./settings-source.js";
import { settingsIn } from "./workspace-settings.js";
import { isAdmin as isNamedAdmin } from "./access.js";

export type Action = "decide" | "stop" | "feedback" | "audit" | "usage" | "others_schedules" | "memory" | "forget";

/** A person acting on one surface, in one workspace, with their roles there (Discord; empty elsewhere). */
export interface Actor {
  readonly surface: Surface;
  /** Where they act (a Slack workspace, a Discord server): its own admins decide there. None in the console and a DM. */
  readonly workspace?: string;
  readonly id: string;
  readonly roles: readonly string[];
  /** The platform names them an admin of the workspace (see RequestScope). */
  readonly workspaceAdmin?: boolean;
}

/** Approvers from the environment, per surface: SLACK_APPROVERS, DISCORD_APPROVERS, DISCORD_APPROVER_ROLE. */
export interface Approvers {
  readonly users?: Readonly<Partial<Record<Surface, readonly string[]>>>;
  readonly roles?: Readonly<Partial<Record<Surface, readonly string[]>>>;
}

/** The approvers the environment names. */
export function approversFrom(config: Pick<Config, "slack" | "discord">): Approvers {
  return {
    users: { slack: config.slack?.approvers ?? [], discord: config.discord?.approvers ?? [] },
    roles: { discord: config.discord?.approverRole ? [config.discord.approverRole] : [] },
  };
}

export interface Deciders {
  readonly users: readonly string[];
  readonly roles: readonly string[];
}

export interface Authority {
  /** `owner`: whose run (or schedule) the action is about; needed for decide and stop. */
  may(action: Action, actor: Actor, owner?: Person): boolean;
  /** Who may decide an approval besides its requester (admins aside), for the approval card. */
  deciders(surface: Surface): Deciders;
}

export function createAuthority(options: { readonly approvers: Approvers; readonly settings: SettingsSource }): Authority {
  const { approvers, settings } = options;
  const deciders = (surface: Surface): Deciders => ({
    users: approvers.users?.[surface] ?? [],
    roles: approvers.roles?.[surface] ?? [],
  });
  const isApprover = (actor: Actor) => {
    const { users, roles } = deciders(actor.surface);
    return users.includes(actor.id) || actor.roles.some((role) => roles.includes(role));
  };
  const settingsOf = (actor: Actor) => settingsIn(settings.current(), actor.workspace);
  const isAdmin = (actor: Actor) => isNamedAdmin(settingsOf(actor), actor.surface, actor.id, actor.workspaceAdmin === true);

  return {
    deciders,
    may(action, actor, owner) {
      switch (action) {
        case "decide":
        case "stop":
          return owner?.id === actor.id || isApprover(actor) || isAdmin(actor);
        case "feedback":
          return isApprover(actor) || isAdmin(actor);
        case "audit":
        case "usage":
        case "others_schedules":
          return isAdmin(actor);
        case "memory":
          return true;
        case "forget":
          return settingsOf(actor).access.forget === "anyone" || isAdmin(actor);
      }
    },
  };
}
