// Tools for the write-origin tests: reads whose result carries an instruction someone else wrote
// (an inbox, a channel), and a write with a destination, which records where it posted.
import { z } from "zod";
import type { Tool } from "../../src/contracts/types.js";

/** `read_inbox`: returns what `text` says when it is called (a test may name a channel known only then). */
export function injectedRead(text: () => string): Tool<Record<string, never>> {
  return { name: "read_inbox", description: "reads the inbox", schema: z.object({}), effect: "read", execute: async () => text() };
}

/** `read_channel`: returns `text`, read from the channel its arguments name. */
export function readChannelTool(text: string): Tool<{ channel: string }> {
  return {
    name: "read_channel",
    description: "reads a channel",
    schema: z.object({ channel: z.string() }),
    effect: "read",
    readsFrom: (args) => args.channel,
    execute: async () => text,
  };
}

export interface PostTool {
  readonly tool: Tool<{ channel: string; text: string }>;
  /** Each real execution's arguments. */
  readonly posted: Array<{ channel: string; text: string }>;
}

/** `post_message`: a write to a channel. */
export function postTool(): PostTool {
  const posted: Array<{ channel: string; text: string }> = [];
  return {
    posted,
    tool: {
      name: "post_message",
      description: "posts a message to a channel",
      schema: z.object({ channel: z.string(), text: z.string() }),
      effect: "write",
      execute: async (args) => {
        posted.push(args);
        return `posted to ${args.channel}`;
      },
    },
  };
}
