// The conversation's earlier turns as a run reads them. The requester's own earlier question is
// theirs to follow up on; another person's question in the same conversation is their message,
// data like any other; an answer the bot made while reading others' text may repeat what it read,
// so it is data too. Turns stored before provenance carry neither mark and read as before.
import { asData, holdsData } from "../../agent/context/data-blocks.js";
import { contentText } from "../../agent/content.js";
import type { ChatMessage, Person } from "../../contracts/types.js";
import type { Turn } from "../../memory/types.js";

/** The two messages of an earlier turn, for a run asked by `requester`. */
export function turnMessages(turn: Turn, requester: Person, boundary: string): ChatMessage[] {
  const someoneElse = turn.asker !== undefined && turn.asker.id !== requester.id;
  const user = someoneElse ? asData(turn.user, { kind: "person", author: turn.asker!, channel: "this conversation" }, boundary) : turn.user;
  const assistant = turn.madeFromData ? asData(turn.assistant, { kind: "derived", from: "answer" }, boundary) : turn.assistant;
  return [
    { role: "user", content: user },
    { role: "assistant", content: assistant },
  ];
}

/** Whether a run's messages held any data block: its answer was made while it read others' text. */
export function readData(messages: readonly ChatMessage[], boundary: string | undefined): boolean {
  return boundary !== undefined && messages.some((message) => holdsData(contentText(message.content), boundary));
}
