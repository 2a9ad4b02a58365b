// A chat message as the runs take it: what was asked, where, by whom, with which files and
// thread context, and how the surface answers it; and what submitting one gives back.
import type { ChatMessage, TaskOrigin } from "../../contracts/types.js";
import type { FileDescriptor } from "../../files/file-ref.js";

export interface Task {
  readonly origin: TaskOrigin;
  readonly text: string;
  /** Earlier messages of the platform thread the request came from, oldest first (already bounded by the surface). */
  readonly threadContext?: readonly ChatMessage[];
  /**
   * Where the surface's context loader reads that thread (plain strings, kept in the intake
   * record): the worker loads it when the run starts, so nothing slow stands between the
   * platform's ack and the record.
   */
  readonly contextSource?: Readonly<Record<string, string>>;
  /**
   * How the surface answers this very message (a Discord interaction's token): a secret that
   * lives in the intake record only until the run is done, never in checkpoints or the audit log.
   */
  readonly reply?: ReplyHandle;
  /** Only in records of an older version, whose surface admitted the message at the event: it is not counted again. */
  readonly admitted?: boolean;
  /** The files the message brought (and, in a thread reply, its root's), read when the run starts. */
  readonly files?: readonly FileDescriptor[];
  /** The platform's order of the message (Slack's ts, Discord's id: decimal digits): a run takes a person's messages in it. */
  readonly sentOrder?: string;
  /** The intake id of the question this message edits: its text is that question, edited. */
  readonly edits?: string;
}

/** A surface's own handle for answering one message or click; opaque to everything but that surface. */
export type ReplyHandle = Readonly<Record<string, string>>;

export type SubmitResult =
  /** Recorded and queued (or taken up again because the process that had it died). */
  | { readonly kind: "accepted"; readonly intakeId: string }
  /** A redelivery: the message is answered already, or its run is in progress. */
  | { readonly kind: "duplicate"; readonly intakeId: string; readonly state: "done" | "in_progress" };
