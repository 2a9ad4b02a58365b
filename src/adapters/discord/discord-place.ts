// Discord's place codec: the only reader and writer of a Discord origin's place, and of the
// reply handle an interaction leaves (its 15-minute token, a secret kept apart from the place).
// A thread is its own conversation but is governed by its parent channel (a forum post by its
// forum): the place keeps both, and the scope says so in neutral words. Records stored by
// earlier versions kept the token in the place and no parent; they are read here. No platform
// library is loaded, so any process can read any surface's records (the audit log's included).
import { z } from "zod";
import type { Person, RequestScope, TaskOrigin } from "../../contracts/types.js";
import type { ReplyHandle } from "../../runs/api/task.js";
import type { Conversation } from "../core/inbound.js";

const KINDS = ["text", "thread", "dm", "other"] as const;

/** A Discord place as the origin stores it: its fields as they are, without the empty ones. */
const Place = z.object({
  /** Null in DMs (stored without it). */
  guild: z.string().nullable().default(null),
  channel: z.string().min(1),
  /** The channel a thread or forum post belongs to. */
  parent: z.string().optional(),
  /** "text": a thread can be started on a message; "thread" / "dm" / "other": it cannot. */
  channelKind: z.enum(KINDS).catch("other"),
  /** The message that asked (mentions). */
  message: z.string().optional(),
  /** The interaction that asked (slash commands, clicks). */
  interaction: z.string().optional(),
});

export type DiscordPlace = z.infer<typeof Place>;
export type ChannelKind = DiscordPlace["channelKind"];

/** How an interaction is answered: `ask` a public deferred reply, `command` an ephemeral one, `click` a deferred update. */
export interface Interaction {
  readonly application: string;
  readonly token: string;
  /** When Discord sent it (epoch ms): its token lasts 15 minutes. */
  readonly at: number;
  readonly kind: "ask" | "command" | "click";
}

export function personOf(user: { id: string; username: string; globalName: string | null }): Person {
  return { id: user.id, name: user.globalName ?? user.username };
}

export function conversationKey(guildId: string | null, channelId: string): string {
  return guildId ? `discord:${guildId}:${channelId}` : `discord:dm:${channelId}`;
}

function scopeOf(place: DiscordPlace): Omit<RequestScope, "roles"> {
  return {
    channel: place.parent ?? place.channel,
    ...(place.parent ? { thread: place.channel } : {}),
    dm: place.channelKind === "dm" || place.guild === null,
    ...(place.guild ? { workspace: place.guild } : {}),
    link: `https://discord.com/channels/${place.guild ?? "@me"}/${place.channel}${place.message ? `/${place.message}` : ""}`,
  };
}

export function conversationAt(place: DiscordPlace): Conversation {
  const stored = Object.entries(place).filter((field): field is [string, string] => typeof field[1] === "string");
  return {
    conversationKey: conversationKey(place.guild, place.channel),
    scope: scopeOf(place),
    place: Object.fromEntries(stored),
    // A thread or a forum post: a channel of its own under `parent`.
    ...(place.parent ? { inThread: true } : {}),
  };
}

export function placeOf(origin: Pick<TaskOrigin, "place">): DiscordPlace | undefined {
  const parsed = Place.safeParse(origin.place);
  return parsed.success ? parsed.data : undefined;
}

/** Kept under the names an earlier version stored in the place, so its records still answer. */
const StoredHandle = z.object({
  application: z.string().min(1),
  interaction_token: z.string().min(1),
  interaction_at: z.string().regex(/^\d+$/),
  reply_via: z.string().optional(),
  kind: z.enum(["ask", "command", "click"]).optional(),
});

export function encodeInteraction(interaction: Interaction): ReplyHandle {
  return {
    application: interaction.application,
    interaction_token: interaction.token,
    interaction_at: String(interaction.at),
    kind: interaction.kind,
  };
}

export function decodeInteraction(handle: ReplyHandle | undefined): Interaction | undefined {
  const parsed = StoredHandle.safeParse(handle);
  if (!parsed.success) return undefined;
  const { application, interaction_token: token, interaction_at: at, reply_via, kind } = parsed.data;
  return { application, token, at: Number(at), kind: kind ?? (reply_via === "followup" ? "click" : "ask") };
}

/** An origin an earlier version stored: its scope, and the interaction token its place held, moved to the reply handle. */
export function upgradeOrigin(origin: TaskOrigin): { readonly origin: TaskOrigin; readonly reply?: ReplyHandle } {
  const place = placeOf(origin);
  if (!place) return { origin };
  const { place: durable, scope } = conversationAt(place);
  const interaction = decodeInteraction(origin.place);
  return {
    origin: { ...origin, scope: { ...scope, roles: [] }, place: durable },
    ...(interaction ? { reply: encodeInteraction(interaction) } : {}),
  };
}
