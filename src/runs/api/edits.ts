// What a person's edit or deletion of a message asks of the runs, and what the runs did with it:
// typed results the core logs and audits, never strings to parse.
import type { Surface, TaskOrigin } from "../../contracts/types.js";
import type { PostedAnswer } from "./presenting.js";
import type { Task } from "./task.js";

export interface EditRequest {
  /** The message as it reads now: its text is the edited question; its origin is where it was written. */
  readonly task: Task;
  /** The edited message's platform id (its receipt when it was first sent). */
  readonly receipt: string;
  /** This edit's own id: the dedupe of its redeliveries. */
  readonly editReceipt: string;
  /** The edit mentions the bot where the message did not before: an edit of a message already answered (or never for the bot) is then a new question. */
  readonly addsMention: boolean;
}

export type EditResult =
  /** The question had not started: it reads as edited now. */
  | { readonly kind: "replaced" }
  /** Its run works: the edit is recorded for it (added before its next model call, or per the channel's policy). */
  | { readonly kind: "for_run"; readonly runId: string }
  /** A new question (the edit added a mention of the bot). */
  | { readonly kind: "asked" }
  /** Nothing to do: answered already, not a question, or a redelivery. */
  | { readonly kind: "ignored"; readonly reason: string };

export interface DeletionRequest {
  readonly surface: Surface;
  /** The deleted message's platform id (its receipt when it was sent). */
  readonly receipt: string;
}

export type DeletionResult =
  /** It had not run: it never will. */
  | { readonly kind: "dropped"; readonly runId: string; readonly origin: TaskOrigin }
  /** Its run was working: it stops without a summary. */
  | { readonly kind: "stopping"; readonly runId: string; readonly origin: TaskOrigin }
  /** Answered, and (DELETE_ANSWERS_WITH_QUESTION) its answer goes with it: where it was posted, when that is known. */
  | { readonly kind: "answered"; readonly runId: string; readonly origin: TaskOrigin; readonly answer?: PostedAnswer }
  | { readonly kind: "ignored"; readonly reason: string };
