// The tools the agent gets when Slack runs: read a channel, read a thread, post a message.
// Reads run at once; post_message is a write, so the loop asks a person before it runs, and it
// posts only where that person could post themselves (a member of the channel). Writes go
// through a client that never retries them. Failures throw an Error the model can act on.
import { z } from "zod";
import type { webApi } from "@slack/bolt";
import type { TaskOrigin, Tool } from "../../agent/types.js";
import { neutraliseMentions } from "./neutralise-mentions.js";
import { describeSlackError, isRateLimited, slackErrorCode } from "./slack-api-error.js";

export const READ_LIMIT_DEFAULT = 20;
export const READ_LIMIT_MAX = 50;
const THREAD_LIMIT = 50;
const PAGE_SIZE = 200;
/** Pages of a thread (or a member list) read at most; beyond that the bot says what it read. */
const MAX_PAGES = 10;
const MESSAGE_PREVIEW_CHARS = 500;
const POST_MAX_CHARS = 4_000;

const channelId = z
  .string()
  .regex(/^[CDG][A-Z0-9]{2,}$/, 'expects a Slack channel id such as "C0123ABCD" (not a #name)')
  .describe("Slack channel id, e.g. C0123ABCD");

const ReadChannelArgs = z.object({
  channel: channelId,
  limit: z
    .number()
    .int("expects a whole number")
    .min(1)
    .max(READ_LIMIT_MAX)
    .default(READ_LIMIT_DEFAULT)
    .describe(`How many recent messages (1–${READ_LIMIT_MAX})`),
});

const ReadThreadArgs = z.object({
  channel: channelId,
  thread_ts: z
    .string()
    .regex(/^\d+\.\d+$/, 'expects a message timestamp such as "1700000000.000100"')
    .describe("ts of the thread's first message"),
});

const PostMessageArgs = z.object({
  channel: channelId,
  text: z.string().trim().min(1, "expects some text").max(POST_MAX_CHARS, `expects at most ${POST_MAX_CHARS} characters`),
});

const ListedMessage = z.object({
  ts: z.string(),
  user: z.string().optional(),
  bot_id: z.string().optional(),
  text: z.string().default(""),
  reply_count: z.number().optional(),
});
const Listing = z.object({ messages: z.array(z.unknown()).default([]) });

function readable(raw: unknown): string | undefined {
  const parsed = ListedMessage.safeParse(raw);
  if (!parsed.success) return undefined;
  const { ts, user, bot_id, text, reply_count } = parsed.data;
  const when = new Date(Number(ts) * 1000).toISOString().replace("T", " ").slice(0, 16);
  const author = user ? `<@${user}>` : bot_id ? `bot ${bot_id}` : "someone";
  const flat = text.replace(/\s+/g, " ").trim();
  const body = flat.length > MESSAGE_PREVIEW_CHARS ? `${flat.slice(0, MESSAGE_PREVIEW_CHARS)}…` : flat;
  const replies = reply_count ? ` (${reply_count} replies, thread_ts ${ts})` : "";
  return `[${when} UTC · ts ${ts}] ${author}: ${body}${replies}`;
}

function explain(error: unknown, channel: string): Error {
  const code = slackErrorCode(error);
  if (code === "not_in_channel")
    return new Error(`I am not a member of ${channel}; someone has to invite me there first, or pick a channel I am in.`);
  if (code === "channel_not_found")
    return new Error(`Channel ${channel} does not exist or I cannot see it; use a channel id from a channel I am in.`);
  if (code === "thread_not_found")
    return new Error(`No thread with that thread_ts in ${channel}; take the ts of the thread's first message.`);
  if (isRateLimited(error))
    return new Error(
      `Slack is rate limiting me right now, so nothing was posted to ${channel}. Tell the person; do not try again at once.`,
    );
  return new Error(`Slack refused the call: ${describeSlackError(error)}.`);
}

const ConversationInfo = z.object({
  channel: z.object({ is_private: z.boolean().optional(), is_im: z.boolean().optional(), is_mpim: z.boolean().optional() }),
});
const MembersPage = z.object({
  members: z.array(z.string()).default([]),
  response_metadata: z.object({ next_cursor: z.string().optional() }).optional(),
});
const RepliesPage = z.object({
  messages: z.array(z.unknown()).default([]),
  response_metadata: z.object({ next_cursor: z.string().optional() }).optional(),
});

/** Slack describes a private channel only with groups:read; without it the answer is missing_scope, which means "private". */
async function describeChannel(client: webApi.WebClient, channel: string): Promise<z.infer<typeof ConversationInfo>["channel"]> {
  try {
    return ConversationInfo.parse(await client.conversations.info({ channel })).channel;
  } catch (error) {
    if (slackErrorCode(error) === "missing_scope") return { is_private: true };
    throw explain(error, channel);
  }
}

/**
 * The bot is in private channels and DMs the person asking may not be in, so a read is
 * allowed only in the conversation the request came from or in a public channel (anyone in
 * the workspace can read those). Anything else, or a channel Slack will not describe, is refused.
 */
async function checkReadable(client: webApi.WebClient, tool: string, channel: string, origin: TaskOrigin): Promise<void> {
  if (channel === origin.place.channel) return;
  const info = await describeChannel(client, channel);
  if (info.is_im === true || info.is_mpim === true || info.is_private !== false) {
    const kind = info.is_im === true ? "a direct message" : info.is_mpim === true ? "a group direct message" : "a private channel";
    throw new Error(`${tool} can only read public channels or this conversation; ${channel} is ${kind}, so I will not read it for you.`);
  }
}

/** Whether `user` is a member of `channel`, reading its member list page by page (bounded). */
async function isMember(client: webApi.WebClient, channel: string, user: string): Promise<boolean> {
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const parsed = MembersPage.parse(await client.conversations.members({ channel, limit: 1000, ...(cursor ? { cursor } : {}) }));
    if (parsed.members.includes(user)) return true;
    cursor = parsed.response_metadata?.next_cursor;
    if (!cursor) return false;
  }
  return false;
}

/**
 * The requester approves their own write, so the bot must not post where they could not post
 * themselves: outside the conversation they asked in, only in a channel they are a member of.
 */
async function checkPostable(client: webApi.WebClient, channel: string, origin: TaskOrigin): Promise<void> {
  if (channel === origin.place.channel) return;
  let member: boolean;
  try {
    member = await isMember(client, channel, origin.requester.id);
  } catch (error) {
    throw explain(error, channel);
  }
  if (!member)
    throw new Error(
      `post_message posts only where the person asking is a member; <@${origin.requester.id}> is not in ${channel}, so I will not post there for them.`,
    );
}

/** A thread's root and its newest replies: Slack lists replies oldest first, so the pages are read to the end (bounded). */
async function latestOfThread(client: webApi.WebClient, channel: string, threadTs: string): Promise<{ messages: unknown[] }> {
  const all: unknown[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const parsed = RepliesPage.parse(
      await client.conversations.replies({ channel, ts: threadTs, limit: PAGE_SIZE, ...(cursor ? { cursor } : {}) }),
    );
    all.push(...parsed.messages);
    cursor = parsed.response_metadata?.next_cursor;
    if (!cursor) break;
  }
  const [root, ...replies] = all;
  return { messages: root === undefined ? [] : [root, ...replies.slice(-(THREAD_LIMIT - 1))] };
}

async function listing(call: () => Promise<unknown>, channel: string, emptyText: string): Promise<string> {
  let response: unknown;
  try {
    response = await call();
  } catch (error) {
    throw explain(error, channel);
  }
  const lines = Listing.parse(response).messages.flatMap((raw) => readable(raw) ?? []);
  return lines.length === 0 ? emptyText : lines.join("\n");
}

/** `writeClient` never retries: a post that failed on the way may still have been made. */
export function createSlackTools(client: webApi.WebClient, writeClient: webApi.WebClient): Tool[] {
  const readChannel: Tool<z.infer<typeof ReadChannelArgs>> = {
    name: "read_channel",
    description: `Read the most recent messages of a public Slack channel the bot is a member of, or of this conversation, oldest first (at most ${READ_LIMIT_MAX}).`,
    schema: ReadChannelArgs,
    effect: "read",
    execute: async ({ channel, limit }, { origin }) => {
      await checkReadable(client, "read_channel", channel, origin);
      return listing(
        async () => {
          const response = await client.conversations.history({ channel, limit });
          return { messages: [...Listing.parse(response).messages].reverse() };
        },
        channel,
        `No messages in ${channel}.`,
      );
    },
  };

  const readThread: Tool<z.infer<typeof ReadThreadArgs>> = {
    name: "read_thread",
    description: `Read one Slack thread: its first message and its newest replies (at most ${THREAD_LIMIT} messages), oldest first, in a public channel or this conversation.`,
    schema: ReadThreadArgs,
    effect: "read",
    execute: async ({ channel, thread_ts }, { origin }) => {
      await checkReadable(client, "read_thread", channel, origin);
      return listing(() => latestOfThread(client, channel, thread_ts), channel, `The thread ${thread_ts} is empty.`);
    },
  };

  const postMessage: Tool<z.infer<typeof PostMessageArgs>> = {
    name: "post_message",
    description: "Post a message to a Slack channel the bot and the person asking are members of. A person approves it before it is sent.",
    schema: PostMessageArgs,
    effect: "write",
    execute: async ({ channel, text }, { origin }) => {
      await checkPostable(client, channel, origin);
      try {
        const response = await writeClient.chat.postMessage({ channel, text: neutraliseMentions(text) });
        return `Posted to ${channel} (ts ${String(response.ts)}).`;
      } catch (error) {
        throw explain(error, channel);
      }
    },
  };

  return [readChannel, readThread, postMessage];
}
