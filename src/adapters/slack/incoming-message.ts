// Turns a raw Slack message event into what the bot should do with it: nothing (bots, edits,
// deletions, its own messages), a memory command, or a question. Pure; the event is untrusted
// and checked with zod. Also decides where the run is shown and which conversation it joins.
import { z } from "zod";

/** How the message reached the bot: a channel mention, a DM, or the app's Messages tab. */
export type EntryPoint = "mention" | "direct" | "assistant";

const SLACK_TS = /^\d+\.\d+$/;

const MessageEvent = z.object({
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
});

const EventBody = z.object({
  team_id: z.string().min(1).optional(),
  event_id: z.string().min(1).optional(),
  event: MessageEvent,
});

/** Subtypes that are still a person writing to the bot. */
const PERSON_SUBTYPES = new Set(["file_share", "thread_broadcast"]);

/** Where a run is rendered. The trace always goes into a thread; the reply does too, except for a top-level DM. */
export interface ThreadPlace {
  readonly team: string;
  readonly channel: string;
  readonly traceThreadTs: string;
  /** Undefined: reply at the top level of a DM. */
  readonly replyThreadTs?: string;
  readonly requester: string;
}

export interface IncomingMessage {
  /** Key for "already processed": the event id, or channel and ts when Slack sent none. */
  readonly dedupeKey: string;
  readonly entry: EntryPoint;
  readonly ts: string;
  /** Set when the message was written inside a thread (not its root). */
  readonly threadTs?: string;
  /** The text without the bot's mention. */
  readonly text: string;
  readonly place: ThreadPlace;
  readonly conversationKey: string;
}

export type Incoming =
  | { readonly kind: "ignore"; readonly reason: string }
  | { readonly kind: "ask" | "memory" | "forget" | "empty"; readonly message: IncomingMessage };

function stripMention(text: string, botUserId: string | undefined): string {
  const withoutBot = botUserId ? text.replace(new RegExp(`<@${botUserId}(\\|[^>]*)?>`, "g"), " ") : text;
  return withoutBot.replace(/\s+/g, " ").trim();
}

function placeFor(entry: EntryPoint, team: string, channel: string, user: string, ts: string, threadTs: string | undefined) {
  if (entry === "direct" && threadTs === undefined) {
    return { conversationKey: `slack:${team}:${channel}`, place: { team, channel, traceThreadTs: ts, requester: user } };
  }
  const root = threadTs ?? ts;
  return { conversationKey: `slack:${team}:${channel}:${root}`, place: { team, channel, traceThreadTs: root, replyThreadTs: root, requester: user } };
}

function commandOf(text: string): "memory" | "forget" | "empty" | "ask" {
  const word = text.toLowerCase().replace(/[.!?]+$/, "");
  if (word === "memory") return "memory";
  if (word === "forget") return "forget";
  return text === "" ? "empty" : "ask";
}

/** `botUserId` is the bot's own user id (auth.test); `fallbackTeam` comes from Bolt's context. */
export function classifyMessage(entry: EntryPoint, body: unknown, botUserId: string | undefined, fallbackTeam?: string): Incoming {
  const parsed = EventBody.safeParse(body);
  if (!parsed.success) return { kind: "ignore", reason: `malformed event: ${parsed.error.issues[0]?.message ?? "invalid"}` };
  const { event, team_id, event_id } = parsed.data;
  if (event.bot_id !== undefined || event.subtype === "bot_message") return { kind: "ignore", reason: "written by a bot" };
  if (event.subtype !== undefined && !PERSON_SUBTYPES.has(event.subtype)) return { kind: "ignore", reason: `message subtype ${event.subtype}` };
  if (event.user === undefined) return { kind: "ignore", reason: "no author" };
  if (botUserId !== undefined && event.user === botUserId) return { kind: "ignore", reason: "written by this bot" };
  if (entry !== "mention" && event.channel_type !== undefined && event.channel_type !== "im") {
    return { kind: "ignore", reason: `not a direct message (${event.channel_type})` };
  }
  // The installing workspace first: in a shared channel `event.team` is the author's workspace.
  const team = team_id ?? event.team ?? fallbackTeam;
  if (team === undefined) return { kind: "ignore", reason: "no team id" };

  const threadTs = event.thread_ts !== undefined && event.thread_ts !== event.ts ? event.thread_ts : undefined;
  const text = stripMention(event.text, botUserId);
  const message: IncomingMessage = {
    dedupeKey: event_id ?? `${event.channel}:${event.ts}`,
    entry,
    ts: event.ts,
    threadTs,
    text,
    ...placeFor(entry, team, event.channel, event.user, event.ts, threadTs),
  };
  return { kind: commandOf(text), message };
}
