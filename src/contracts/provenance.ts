// Where a piece of text in a run's context came from. Only the requester's own words are theirs
// to instruct with; everything else (another person's message, a file, a tool's result, what
// the bot remembered) may carry instructions written by someone else, so it reaches the model
// as data, and what a write copies out of it can be traced back to it. Plain data: stored with
// the run, read by the loop, the approval card and the trace alike.
import type { Person } from "./person.js";

export type TextSource =
  /** The message of the person who asked: the only text whose instructions the run follows. */
  | { readonly kind: "requester"; readonly person: Person }
  /** A message another person wrote where the bot read it (a thread before the question). */
  | {
      readonly kind: "person";
      readonly author: Person;
      /** How the channel is named to people and the model ("#general", "<#C123>", "a DM"). */
      readonly channel: string;
    }
  /** A file's text; `sharedBy` is whoever posted it, not who wrote it. */
  | { readonly kind: "file"; readonly name: string; readonly sharedBy?: Person }
  /** What a tool returned; `server` for an MCP tool, `channel` for a read of a channel's messages. */
  | { readonly kind: "tool"; readonly tool: string; readonly server?: string; readonly channel?: string }
  /** What the bot remembered from earlier conversations: facts distilled from text of any of the sources above. */
  | { readonly kind: "memory" }
  /**
   * What the bot itself wrote from text of the sources above: an earlier answer made while it read
   * others' text, or a digest of a run's earlier steps. Its words may repeat what it read, so they
   * stay data, though the bot wrote them.
   */
  | { readonly kind: "derived"; readonly from: "answer" | "steps" };

/** A piece of context with where it came from. */
export interface SourcedText {
  readonly source: TextSource;
  readonly text: string;
}

/** Whether the text may instruct the run: the requester's own message only. */
export const isRequesterSource = (source: TextSource): boolean => source.kind === "requester";
