// Slack's `message.channels` / `message.groups` events: every message in the channels the bot is
// in. Only a reply in a thread can be for the bot without a mention (core/follow-ups.ts decides
// whether the bot works in that thread); a mention of the bot arrives as app_mention too and is
// answered from there, and a reply that mentions someone else is addressed to them. Pure.

/** Channel types of message.channels and message.groups (private channels). */
const CHANNEL_TYPES = new Set(["channel", "group"]);

export type ThreadReply = { readonly kind: "reply" } | { readonly kind: "ignore"; readonly reason: string };

/** A user mention (`<@U…>`, `<@U…|name>`) or a user group's (`<!subteam^S…>`); a channel-wide one (`<!here>`) names nobody. */
const MENTION = /<@([A-Z0-9]+)(?:\|[^>]*)?>|<!subteam\^[A-Z0-9]+(?:\|[^>]*)?>/g;

export function isChannelMessage(channelType: string | undefined): boolean {
  return channelType !== undefined && CHANNEL_TYPES.has(channelType);
}

/** Whether a channel message is a thread reply the bot may take without a mention. */
export function threadReplyOf(
  event: { readonly text: string; readonly ts: string; readonly thread_ts?: string | undefined },
  botUserId: string | undefined,
): ThreadReply {
  if (event.thread_ts === undefined || event.thread_ts === event.ts)
    return { kind: "ignore", reason: "a channel message outside a thread" };
  const mentioned = [...event.text.matchAll(MENTION)].map((match) => match[1]);
  if (botUserId !== undefined && mentioned.includes(botUserId)) return { kind: "ignore", reason: "a mention (answered as app_mention)" };
  if (mentioned.length > 0) return { kind: "ignore", reason: "a reply addressed to someone else" };
  return { kind: "reply" };
}
