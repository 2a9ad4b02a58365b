// The chat tools, with the same names and shape on every platform: read_channel and
// read_thread (reads: they run at once) and post_message (a write: the loop asks a person
// first, then runs it once). The platform brings its primitives, each of which acts for the
// person who asked: it reads and posts only where they may themselves, and throws an Error the
// model can act on otherwise.
import { z } from "zod";
import type { TaskOrigin, Tool } from "../../contracts/types.js";

export const READ_LIMIT_DEFAULT = 20;
export const READ_LIMIT_MAX = 50;
const PREVIEW_CHARS = 500;

/** One message as a tool shows it to the model. */
export interface ChatLine {
  /** The platform's id of the message (a Slack ts is also how a thread is named). */
  readonly id: string;
  /** ISO 8601. */
  readonly at: string;
  readonly author: string;
  readonly text: string;
  /** e.g. "(3 replies, thread_ts 1700000000.000100)". */
  readonly note?: string;
}

export interface ChatPrimitives {
  /** "Slack" or "Discord", for the descriptions. */
  readonly platform: string;
  /** A channel as the model may name it on this platform, parsed to the platform's id. */
  readonly channel: z.ZodType<string>;
  readonly maxPostChars: number;
  /** The channel's latest messages, oldest first. */
  readChannel(origin: TaskOrigin, channel: string, limit: number): Promise<readonly ChatLine[]>;
  /** A thread's first message and its newest replies, oldest first; absent where threads are channels (Discord). */
  readonly readThread?: {
    readonly thread: z.ZodType<string>;
    read(origin: TaskOrigin, channel: string, thread: string): Promise<readonly ChatLine[]>;
  };
  /** Posts once (never retried: a failed request may still have posted); the sentence the model gets back. */
  postMessage(origin: TaskOrigin, channel: string, text: string): Promise<string>;
}

function lineOf(message: ChatLine): string {
  const when = message.at.slice(0, 16).replace("T", " ");
  const flat = message.text.replace(/\s+/g, " ").trim();
  const body = flat === "" ? "(no text)" : flat.length > PREVIEW_CHARS ? `${flat.slice(0, PREVIEW_CHARS)}…` : flat;
  return `[${when} UTC · ${message.id}] ${message.author}: ${body}${message.note ? ` ${message.note}` : ""}`;
}

const listing = (lines: readonly ChatLine[], empty: string) => (lines.length === 0 ? empty : lines.map(lineOf).join("\n"));

export function chatTools(primitives: ChatPrimitives): Tool[] {
  const { platform, channel } = primitives;
  const ReadChannelArgs = z.object({
    channel,
    limit: z
      .number()
      .int("expects a whole number")
      .min(1, "expects at least 1")
      .max(READ_LIMIT_MAX, `expects at most ${READ_LIMIT_MAX}`)
      .default(READ_LIMIT_DEFAULT)
      .describe(`How many recent messages (1–${READ_LIMIT_MAX})`),
  });
  const PostMessageArgs = z.object({
    channel,
    text: z
      .string()
      .trim()
      .min(1, "expects some text")
      .max(primitives.maxPostChars, `expects at most ${primitives.maxPostChars} characters`),
  });

  const readChannel: Tool<z.infer<typeof ReadChannelArgs>> = {
    name: "read_channel",
    description: `Read the most recent messages of a ${platform} channel the person asking can read (this conversation included), oldest first (at most ${READ_LIMIT_MAX}).`,
    schema: ReadChannelArgs,
    effect: "read",
    readsFrom: (args) => args.channel,
    execute: async (args, { origin }) =>
      listing(await primitives.readChannel(origin, args.channel, args.limit), `No messages in ${args.channel}.`),
  };

  const postMessage: Tool<z.infer<typeof PostMessageArgs>> = {
    name: "post_message",
    description: `Post a message to a ${platform} channel where the person asking may post (a person approves it before it is sent). Mentions in the text ping nobody.`,
    schema: PostMessageArgs,
    effect: "write",
    execute: (args, { origin }) => primitives.postMessage(origin, args.channel, args.text),
  };

  const thread = primitives.readThread;
  if (!thread) return [readChannel, postMessage];
  const ReadThreadArgs = z.object({ channel, thread_ts: thread.thread });
  const readThread: Tool<z.infer<typeof ReadThreadArgs>> = {
    name: "read_thread",
    description: `Read one ${platform} thread: its first message and its newest replies (at most ${READ_LIMIT_MAX} messages), oldest first, where the person asking can read.`,
    schema: ReadThreadArgs,
    effect: "read",
    readsFrom: (args) => args.channel,
    execute: async (args, { origin }) =>
      listing(await thread.read(origin, args.channel, args.thread_ts), `The thread ${args.thread_ts} is empty.`),
  };
  return [readChannel, readThread, postMessage];
}
