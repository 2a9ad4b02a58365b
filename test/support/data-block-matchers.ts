// What the model is sent for another person's message: a data block naming them and the channel
// (src/agent/context/data-blocks.ts), under whichever boundary the run drew.
import { expect } from "vitest";

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Matches the whole content of a message another person wrote in the thread, as the model reads it. */
export function personBlock(user: string, channel: string, text: string): unknown {
  return expect.stringMatching(
    new RegExp(`^<<data [0-9a-f]{12} from="a message by @${user} in <#${channel}>">>\\n${escaped(text)}\\n<<end data [0-9a-f]{12}>>$`),
  );
}
