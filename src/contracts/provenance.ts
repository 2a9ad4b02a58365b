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

/** A write's argument whose value came from text that is not the requester's (context/write-origins.ts finds them). */
export interface WriteOrigin {
  /** The argument's path: "text", "message.to", "recipients[1]". */
  readonly argument: string;
  readonly role: "destination" | "text";
  readonly source: TextSource;
  /** "whole" for a value found as it is; "part" for a long value mostly found. */
  readonly match: "whole" | "part";
}

/**
 * What the approval card of a write that copies from content someone else wrote carries: where
 * each such argument came from, and what UNTRUSTED_WRITES asks of the decision. Absent from a
 * write whose arguments are all the requester's own.
 */
export interface WriteProvenance {
  /** Never empty. */
  readonly origins: readonly WriteOrigin[];
  /** `warning`: shown with a warning; `other_approver`: the destination came from such content alone, so the requester may not approve it. */
  readonly needs: "warning" | "other_approver";
}

/**
 * The channel whose messages a call read, if it read one: its text may be seen only by that
 * channel's people, so it is not shown in a trace, and what the model writes after it is not
 * streamed where the answer's hold may keep it (runs/holds).
 */
export const channelReadBy = (call: { readonly source?: TextSource }): string | undefined =>
  call.source?.kind === "tool" ? call.source.channel : undefined;

/** A call that read a channel's messages (channelReadBy). */
export const readsAChannel = (call: { readonly source?: TextSource }): boolean => channelReadBy(call) !== undefined;
