// Turns a raw Slack message event into what the bot should do with it: nothing (bots, edits,
// deletions, its own messages) or a message for the core (a question or a command, with the
// files it brought: a message of files alone is a question too). Pure; the
// event is untrusted and checked with zod. Everywhere, DMs included, the message's thread is the
// conversation and where the run is shown: a top-level message starts it, a follow-up continues it.
import { z } from "zod";
import { spotOf, type Conversation, type MessageInput } from "../core/inbound.js";
import { slackFilesOf } from "./slack-files.js";
import { conversationAt, isDirectChannel } from "./slack-place.js";
import { threadSource } from "./thread-context.js";
import { isChannelMessage, threadReplyOf } from "./thread-replies.js";
import type { WorkspaceRef } from "./install/workspace-ref.js";

/** How the message reached the bot: a mention (channels, group DMs), or a message event (DMs, the Messages tab, channel threads). */
export type EntryPoint = "mention" | "direct";

const SLACK_TS = /^\d+\.\d+$/;

const EventBody = z.object({
  team_id: z.string().min(1).optional(),
  enterprise_id: z.string().min(1).nullish(),
  event: z.object({
    type: z.string(),
    user: z.string().min(1).optional(),
    bot_id: z.string().optional(),
    subtype: z.string().optional(),
    text: z.string().default(""),
    ts: z.string().regex(SLACK_TS),
    thread_ts: z.string().regex(SLACK_TS).optional(),
    channel: z.string().min(1),
    channel_type: z.string().optional(),
    team: z.string().min(1).optional(),
    user_team: z.string().min(1).optional(),
    files: z.unknown().optional(),
  }),
});

/** Subtypes that are still a person writing to the bot. */
const PERSON_SUBTYPES = new Set(["file_share", "thread_broadcast"]);

export type Incoming =
  | { readonly kind: "ignore"; readonly reason: string }
  | { readonly kind: "message"; readonly message: MessageInput }
  /** A reply in a channel's thread without a mention: for the bot if it works in that thread (core/follow-ups.ts). */
  | { readonly kind: "follow_up"; readonly message: MessageInput };

/** The text without the bot's mention (`<@U…>`, `<@U…|name>`), its spaces evened out. */
export function stripMention(text: string, botUserId: string | undefined): string {
  const withoutBot = botUserId ? text.replace(new RegExp(`<@${botUserId}(\\|[^>]*)?>`, "g"), " ") : text;
  return withoutBot.replace(/\s+/g, " ").trim();
}

/** Where the installation the event came through belongs: an Enterprise Grid org, an org-wide install. */
export interface InstalledIn {
  readonly enterprise?: string | undefined;
  readonly orgInstall?: boolean | undefined;
}

/**
 * The conversation a person's message belongs to: its thread (a top-level message starts one), in the
 * installing workspace `team` (an org-wide install's event may name only the org: its id then).
 */
export function conversationOfMessage(
  team: string,
  channel: string,
  message: {
    readonly ts: string;
    readonly thread_ts?: string | undefined;
    readonly user_team?: string | undefined;
    readonly team?: string | undefined;
  },
  installedIn: InstalledIn = {},
): Conversation {
  const root = message.thread_ts ?? message.ts;
  const userTeam = message.user_team ?? message.team ?? team;
  return {
    ...conversationAt({
      team,
      channel,
      traceThreadTs: root,
      replyThreadTs: root,
      ...(userTeam === team ? {} : { requesterTeam: userTeam }),
      ...(installedIn.enterprise ? { enterprise: installedIn.enterprise } : {}),
      ...(installedIn.orgInstall ? { orgInstall: true as const } : {}),
    }),
    ...(message.thread_ts !== undefined && message.thread_ts !== message.ts ? { inThread: true } : {}),
  };
}

/**
 * `botUserId` is the bot's own user id (auth.test, or the workspace's installation); `fallbackTeam` and
 * `workspace` come from Bolt's context (an Enterprise Grid org and an org-wide install are kept with the place).
 */
export function classifyMessage(
  entry: EntryPoint,
  body: unknown,
  botUserId: string | undefined,
  fallbackTeam?: string,
  workspace?: WorkspaceRef,
): Incoming {
  const parsed = EventBody.safeParse(body);
  if (!parsed.success) return { kind: "ignore", reason: `malformed event: ${parsed.error.issues[0]?.message ?? "invalid"}` };
  const { event, team_id, enterprise_id } = parsed.data;
  if (event.bot_id !== undefined || event.subtype === "bot_message") return { kind: "ignore", reason: "written by a bot" };
  if (event.subtype !== undefined && !PERSON_SUBTYPES.has(event.subtype))
    return { kind: "ignore", reason: `message subtype ${event.subtype}` };
  if (event.user === undefined) return { kind: "ignore", reason: "no author" };
  if (botUserId !== undefined && event.user === botUserId) return { kind: "ignore", reason: "written by this bot" };
  // A mention in a DM also arrives as message.im, which answers it.
  if (entry === "mention" && isDirectChannel(event.channel)) return { kind: "ignore", reason: "a mention in a DM (answered as the DM)" };
  const followUp = entry !== "mention" && isChannelMessage(event.channel_type);
  if (followUp) {
    const reply = threadReplyOf(event, botUserId);
    if (reply.kind === "ignore") return reply;
  } else if (entry !== "mention" && event.channel_type !== undefined && event.channel_type !== "im") {
    return { kind: "ignore", reason: `not a direct message (${event.channel_type})` };
  }
  // The installing workspace first: in a shared channel `event.team` is the author's workspace. An org-wide
  // install's event may name only the org: the conversation is keyed with its id then.
  const enterprise = enterprise_id ?? workspace?.enterprise;
  const team = team_id ?? event.team ?? fallbackTeam ?? enterprise;
  if (team === undefined) return { kind: "ignore", reason: "no team id" };

  const inThread = event.thread_ts !== undefined && event.thread_ts !== event.ts;
  const root = event.thread_ts ?? event.ts;
  const conversation = conversationOfMessage(team, event.channel, event, { enterprise, orgInstall: workspace?.orgInstall });
  // Only a channel thread holds other people's words (a DM thread is already in memory).
  const contextSource = (entry === "mention" || followUp) && inThread ? threadSource(event.channel, root, event.ts) : undefined;
  const files = slackFilesOf(event.files);
  const message: MessageInput = {
    at: spotOf("slack", conversation, { id: event.user, roles: [] }),
    text: stripMention(event.text, botUserId),
    // The message itself, not the event id: Slack sends one message as two events (a DM that mentions the bot).
    receipt: `${event.channel}:${event.ts}`,
    sentOrder: event.ts,
    ...(contextSource ? { contextSource } : {}),
    ...(files.length > 0 ? { files } : {}),
  };
  return { kind: followUp ? "follow_up" : "message", message };
}
