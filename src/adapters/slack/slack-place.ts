// Slack's place codec: the only reader and writer of a Slack origin's place. A place is the
// thread a run is rendered in (a top-level DM starts one under itself). It is written once, at
// intake, with the neutral scope governance reads; records stored by earlier versions have the
// same keys and get their scope here when they are loaded.
import { z } from "zod";
import type { RequestScope, TaskOrigin } from "../../contracts/types.js";
import type { Conversation } from "../core/inbound.js";
import type { WorkspaceRef } from "./install/workspace-ref.js";

/** Where a run is rendered: the trace and the reply go into one thread. */
export interface ThreadPlace {
  readonly team: string;
  readonly channel: string;
  readonly traceThreadTs: string;
  /** Undefined only for places stored by an older version (a reply at the top level of a DM), and for clicks at the top level. */
  readonly replyThreadTs?: string;
  readonly requester: string;
  /** The requester's own workspace (differs from `team` for a Slack Connect user); streams are addressed to it. */
  readonly requesterTeam?: string;
  /** The Enterprise Grid org, when the workspace is in one. */
  readonly enterprise?: string;
  /** The app was installed org-wide: the org's installation answers here. */
  readonly orgInstall?: true;
}

const Stored = z.object({
  team: z.string().min(1),
  channel: z.string().min(1),
  thread_ts: z.string().min(1),
  reply_thread_ts: z.string().min(1).optional(),
  requester_team: z.string().min(1).optional(),
  enterprise: z.string().min(1).optional(),
  org_install: z.literal("yes").optional(),
});

/** DM channel ids start with D. */
export const isDirectChannel = (channel: string) => channel.startsWith("D");

function scopeOf(place: Omit<ThreadPlace, "requester">): Omit<RequestScope, "roles"> {
  const ts = place.replyThreadTs ?? place.traceThreadTs;
  return {
    channel: place.channel,
    dm: isDirectChannel(place.channel),
    workspace: place.team,
    link: `https://app.slack.com/client/${place.team}/${place.channel}/thread/${place.channel}-${ts}`,
  };
}

export function conversationAt(place: Omit<ThreadPlace, "requester">): Conversation {
  return {
    conversationKey: `slack:${place.team}:${place.channel}:${place.traceThreadTs}`,
    scope: scopeOf(place),
    place: {
      team: place.team,
      channel: place.channel,
      thread_ts: place.traceThreadTs,
      ...(place.replyThreadTs === undefined ? {} : { reply_thread_ts: place.replyThreadTs }),
      ...(place.requesterTeam === undefined ? {} : { requester_team: place.requesterTeam }),
      ...(place.enterprise === undefined ? {} : { enterprise: place.enterprise }),
      ...(place.orgInstall ? { org_install: "yes" } : {}),
    },
  };
}

/** The installation that answers in a place. */
export function workspaceOf(place: Pick<ThreadPlace, "team" | "enterprise" | "orgInstall">): WorkspaceRef {
  return { team: place.team, orgInstall: place.orgInstall === true, ...(place.enterprise ? { enterprise: place.enterprise } : {}) };
}

/** The installation that answers for an origin: its place's, or (an origin without a Slack place) its scope's workspace. */
export function workspaceOfOrigin(origin: Pick<TaskOrigin, "place" | "requester" | "scope">): WorkspaceRef | undefined {
  const place = placeOf(origin);
  if (place) return workspaceOf(place);
  return origin.scope?.workspace ? { team: origin.scope.workspace, orgInstall: false } : undefined;
}

/** The thread of an origin, or undefined when its place is not a Slack place (damaged or foreign). */
export function placeOf(origin: Pick<TaskOrigin, "place" | "requester">): ThreadPlace | undefined {
  const parsed = Stored.safeParse(origin.place);
  if (!parsed.success) return undefined;
  const { team, channel, thread_ts, reply_thread_ts, requester_team, enterprise, org_install } = parsed.data;
  return {
    team,
    channel,
    traceThreadTs: thread_ts,
    requester: origin.requester.id,
    ...(reply_thread_ts ? { replyThreadTs: reply_thread_ts } : {}),
    ...(requester_team ? { requesterTeam: requester_team } : {}),
    ...(enterprise ? { enterprise } : {}),
    ...(org_install ? { orgInstall: true as const } : {}),
  };
}

/** A Slack place holds no secrets, so an old origin only gains its scope. */
export function upgradeOrigin(origin: TaskOrigin): { readonly origin: TaskOrigin } {
  const place = placeOf(origin);
  if (!place) return { origin };
  return { origin: { ...origin, scope: { ...scopeOf(place), roles: [] } } };
}
