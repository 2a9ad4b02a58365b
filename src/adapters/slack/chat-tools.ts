// Slack's reads and posts under the core's chat tools (core/chat-tools.ts), each acting for the
// person who asked. The bot is in channels the person may not read, so a read is allowed only
// where they may read themselves: the conversation they asked in, a public channel of their own
// workspace (a full member of it), or a conversation they are a member of (conversations.members).
// A Slack Connect or guest requester (users.info: is_restricted, is_ultra_restricted, is_stranger,
// or another team) reads only conversations they are in. A post goes only where they are a
// member. A missing scope (users:read, groups:read) means no, never yes. Writes go through a
// client that never retries them. Failures throw an Error the model can act on.
import type { webApi } from "@slack/bolt";
import { z } from "zod";
import type { TaskOrigin, Tool } from "../../contracts/types.js";
import { chatTools, READ_LIMIT_MAX, type ChatLine } from "../core/chat-tools.js";
import { neutraliseMentions } from "./slack-text.js";
import {
  ChannelInfo,
  describeSlackError,
  isPublicIn,
  isRateLimited,
  messagesIn,
  readPages,
  readThread,
  slackErrorCode,
} from "./slack-api.js";
import type { SlackClients } from "./slack-clients.js";
import { placeOf, workspaceOfOrigin } from "./slack-place.js";

/** Pages of a thread (or a member list) read at most; beyond that the bot says what it read. */
const MAX_PAGES = 10;
const POST_MAX_CHARS = 4_000;

const UserInfo = z.object({
  user: z.object({
    team_id: z.string().optional(),
    is_restricted: z.boolean().optional(),
    is_ultra_restricted: z.boolean().optional(),
    is_stranger: z.boolean().optional(),
  }),
});
function linesOf(listing: readonly unknown[]): ChatLine[] {
  return messagesIn(listing).map(({ ts, user, bot_id, text, reply_count }) => {
    const author = user ? `<@${user}>` : bot_id ? `bot ${bot_id}` : "someone";
    const note = reply_count ? `(${reply_count} replies, thread_ts ${ts})` : undefined;
    return { id: `ts ${ts}`, at: new Date(Number(ts) * 1000).toISOString(), author, text, ...(note ? { note } : {}) };
  });
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
    return new Error(`Slack is rate limiting me right now, so nothing was done in ${channel}. Tell the person; do not try again at once.`);
  return new Error(`Slack refused the call: ${describeSlackError(error)}.`);
}

/** A Slack call whose failure becomes an explanation for the model; a missing scope is a refusal. */
async function call<T>(channel: string, work: () => Promise<T>, refusal: string): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (slackErrorCode(error) === "missing_scope") throw new Error(refusal);
    throw explain(error, channel);
  }
}

export function createSlackTools(clients: SlackClients): Tool[] {
  /** Whether `user` is a member of `channel`, reading its member list page by page (bounded). */
  async function isMember(client: webApi.WebClient, channel: string, user: string): Promise<boolean> {
    let member = false;
    await readPages(
      (page) => client.conversations.members({ channel, limit: 1000, ...page }),
      ({ members }) => (member = members.includes(user)),
      MAX_PAGES,
    );
    return member;
  }

  const here = (origin: TaskOrigin) => placeOf(origin)?.channel ?? origin.scope?.channel;
  const memberRefusal = (tool: string, channel: string, origin: TaskOrigin) =>
    `${tool} only works where <@${origin.requester.id}> may read; they are not a member of ${channel}, so I will not read it for them.`;

  /** The asking workspace's clients: a tool reads and posts only there. */
  const clientsAt = (origin: TaskOrigin) => {
    const workspace = workspaceOfOrigin(origin);
    if (!workspace) throw new Error("This conversation is not in a Slack workspace the bot can name, so I can't use Slack from here.");
    return { client: clients.of(workspace), writer: clients.writerOf(workspace) };
  };

  async function checkReadable(client: webApi.WebClient, tool: string, channel: string, origin: TaskOrigin): Promise<void> {
    if (channel === here(origin)) return;
    const user = origin.requester.id;
    const unsure = `${tool} can't tell whether <@${user}> may read ${channel} (Slack withholds it from this app), so I will not read it for them.`;
    const { user: who } = UserInfo.parse(await call(channel, () => client.users.info({ user }), unsure));
    const team = placeOf(origin)?.team ?? origin.scope?.workspace;
    const outsider = who.is_restricted || who.is_ultra_restricted || who.is_stranger || who.team_id === undefined || who.team_id !== team;
    if (!outsider) {
      const { channel: info } = ChannelInfo.parse(await call(channel, () => client.conversations.info({ channel }), unsure));
      if (isPublicIn(info, team)) return;
    }
    if (!(await call(channel, () => isMember(client, channel, user), unsure))) throw new Error(memberRefusal(tool, channel, origin));
  }

  /** A thread's root and its newest replies: Slack lists replies oldest first, so the pages are read to the end (bounded). */
  async function latestOfThread(client: webApi.WebClient, channel: string, threadTs: string): Promise<unknown[]> {
    const {
      messages: [root, ...replies],
    } = await readThread(client, { channel, ts: threadTs }, MAX_PAGES);
    return root === undefined ? [] : [root, ...replies.slice(-(READ_LIMIT_MAX - 1))];
  }

  return chatTools({
    platform: "Slack",
    channel: z
      .string()
      .regex(/^[CDG][A-Z0-9]{2,}$/, 'expects a Slack channel id such as "C0123ABCD" (not a #name)')
      .describe("Slack channel id, e.g. C0123ABCD"),
    maxPostChars: POST_MAX_CHARS,
    async readChannel(origin, channel, limit) {
      const { client } = clientsAt(origin);
      await checkReadable(client, "read_channel", channel, origin);
      const history = await call(channel, () => client.conversations.history({ channel, limit }), `I may not read ${channel}.`);
      return linesOf(
        z
          .array(z.unknown())
          .parse(history.messages ?? [])
          .reverse(),
      );
    },
    readThread: {
      thread: z
        .string()
        .regex(/^\d+\.\d+$/, 'expects a message timestamp such as "1700000000.000100"')
        .describe("ts of the thread's first message"),
      async read(origin, channel, thread) {
        const { client } = clientsAt(origin);
        await checkReadable(client, "read_thread", channel, origin);
        return linesOf(await call(channel, () => latestOfThread(client, channel, thread), `I may not read ${channel}.`));
      },
    },
    async postMessage(origin, channel, text) {
      const { client, writer } = clientsAt(origin);
      // The requester approves their own write, so the bot posts only where they could post themselves.
      if (channel !== here(origin)) {
        const refusal = `post_message posts only where the person asking is a member; <@${origin.requester.id}> is not in ${channel}, so I will not post there for them.`;
        if (!(await call(channel, () => isMember(client, channel, origin.requester.id), refusal))) throw new Error(refusal);
      }
      try {
        const response = await writer.chat.postMessage({ channel, text: neutraliseMentions(text) });
        return `Posted to ${channel} (ts ${String(response.ts)}).`;
      } catch (error) {
        throw explain(error, channel);
      }
    },
  });
}
