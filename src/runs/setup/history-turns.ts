// The conversation's earlier turns as a run reads them. The requester's own earlier question is
// theirs to follow up on; another person's question in the same conversation is their message,
// data like any other; an answer the bot made while reading others' text may repeat what it read,
// so it is data too. Turns stored before provenance carry neither mark and read as before.
import { asData, holdsData } from "../../agent/context/data-blocks.js";
import { contentText } from "../../agent/content.js";
import type { SourcedText, TextSource } from "../../contracts/provenance.js";
import type { ChatMessage, Person } from "../../contracts/types.js";
import type { Turn } from "../../memory/types.js";

/** Where the turn's question and answer came from, for a run asked by `requester`; the requester's own words have no entry. */
function turnParts(turn: Turn, requester: Person): { readonly user?: TextSource; readonly assistant?: TextSource } {
  const someoneElse = turn.asker !== undefined && turn.asker.id !== requester.id;
  return {
    ...(someoneElse ? { user: { kind: "person", author: turn.asker!, channel: "this conversation" } as const } : {}),
    ...(turn.madeFromData ? { assistant: { kind: "derived", from: "answer" } as const } : {}),
  };
}

/** The two messages of an earlier turn, for a run asked by `requester`. */
export function turnMessages(turn: Turn, requester: Person, boundary: string): ChatMessage[] {
  const parts = turnParts(turn, requester);
  return [
    { role: "user", content: parts.user ? asData(turn.user, parts.user, boundary) : turn.user },
    { role: "assistant", content: parts.assistant ? asData(turn.assistant, parts.assistant, boundary) : turn.assistant },
  ];
}

/** The turn's texts that are not the requester's, with their sources: what a later write may copy (the approval card). */
export function turnSources(turn: Turn, requester: Person): SourcedText[] {
  const parts = turnParts(turn, requester);
  return [
    ...(parts.user ? [{ source: parts.user, text: turn.user }] : []),
    ...(parts.assistant ? [{ source: parts.assistant, text: turn.assistant }] : []),
  ];
}

/** Whether a run's messages held any data block: its answer was made while it read others' text. */
export function readData(messages: readonly ChatMessage[], boundary: string | undefined): boolean {
  return boundary !== undefined && messages.some((message) => holdsData(contentText(message.content), boundary));
}
