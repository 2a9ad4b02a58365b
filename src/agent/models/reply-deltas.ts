// A reply that is whole already, told to a caller that asked for a stream as the pieces a server
// would have streamed: its text, then each tool call (id and name with its arguments). Callers
// see one shape whether the model streamed or not: the demo model (word by word), a server that
// can't stream (its text as one piece).
import type { ModelDelta, ModelReply } from "../../contracts/types.js";

/** How a reply's text is cut into pieces; joined, the pieces are the text. */
export type TextCut = (text: string) => readonly string[];

/** The text as one piece. */
export const inOnePiece: TextCut = (text) => [text];

/** Word by word, each word with the space before it (as models stream tokens); a trailing space is a piece of its own. */
export const wordByWord: TextCut = (text) => text.match(/\s*\S+|\s+$/g) ?? [];

/** The pieces of `reply`, in the order a stream brings them; empty text brings no piece. */
export function replyDeltas(reply: ModelReply, cut: TextCut = inOnePiece): ModelDelta[] {
  const text = reply.content ? cut(reply.content).map((piece): ModelDelta => ({ kind: "text", text: piece })) : [];
  const calls = reply.toolCalls.map(
    (call, index): ModelDelta => ({ kind: "tool_call", index, id: call.id, name: call.name, arguments: call.arguments }),
  );
  return [...text, ...calls];
}

/** Tells `onDelta` the pieces of `reply`, then hands the reply on. */
export function toldAsStream(reply: ModelReply, onDelta: ((delta: ModelDelta) => void) | undefined, cut?: TextCut): ModelReply {
  if (onDelta) for (const delta of replyDeltas(reply, cut)) onDelta(delta);
  return reply;
}
