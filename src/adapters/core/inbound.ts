// What a surface hands the core once it has parsed an untrusted event: who acts, where, and
// what they did. The core answers through the surface; none of these calls throws.
import type { Decision, GuardStop, Person, RequestScope, Surface, TaskOrigin } from "../../contracts/types.js";
import type { Rating } from "../../memory/feedback.js";
import type { FileDescriptor } from "../../files/file-ref.js";
import type { ReplyHandle } from "../../runs/api/task.js";
import type { Spot } from "./spot.js";
import type { HeldChoice } from "../../runs/holds/held-answers.js";
import type { FormAction, FormClick, FormSubmission, FormSubmitted } from "./form-clicks.js";

/** A person as the platform told us: ids, and (Discord) their roles where they acted. */
export interface Someone extends Person {
  readonly roles: readonly string[];
}

/** A conversation as the surface's place codec encodes it; `scope` without the person's roles. */
export interface Conversation {
  readonly conversationKey: string;
  readonly scope: Omit<RequestScope, "roles">;
  readonly place: Readonly<Record<string, string>>;
  /** The person wrote inside an existing thread, not at a channel's top level (see Spot). */
  readonly inThread?: boolean;
}

/** The spot where `by` acted in `conversation`. */
export function spotOf(surface: Surface, conversation: Conversation, by: Someone, reply?: ReplyHandle): Spot {
  const { roles, ...requester } = by;
  const origin: TaskOrigin = {
    surface,
    conversationKey: conversation.conversationKey,
    requester,
    scope: { ...conversation.scope, roles },
    place: conversation.place,
  };
  return { origin, ...(reply ? { reply } : {}), ...(conversation.inThread ? { inThread: true } : {}) };
}

/** A person wrote to the bot. */
export interface MessageInput {
  readonly at: Spot;
  /** The text without the bot's mention. */
  readonly text: string;
  /** The platform's id of the message (the dedupe of redeliveries). */
  readonly receipt: string;
  /** The platform's order of its messages (Slack's ts, Discord's id: decimal digits), where the receipt is not it. */
  readonly sentOrder?: string;
  /** Where the worker reads the thread the message was written in. */
  readonly contextSource?: Readonly<Record<string, string>>;
  /** The files the message brought, as the surface describes them (read when the run starts, never before the ack). */
  readonly files?: readonly FileDescriptor[];
}

/**
 * A person's reply in a thread that does not mention the bot, nor anyone else: for the bot when it works in that thread
 * (core/follow-ups.ts) and the channel's settings let replies reach it without a mention.
 */
export interface FollowUpInput extends MessageInput {
  /** The platform itself says the thread is the bot's (Discord: a thread the bot started on its answer). */
  readonly botThread?: boolean;
}

/** A person edited a message of theirs (the platforms let only its author). */
export interface EditInput {
  readonly at: Spot;
  /** The edited message's receipt, as MessageInput had it when it was sent. */
  readonly receipt: string;
  /** This edit's own id (the dedupe of its redeliveries). */
  readonly editReceipt: string;
  /** The text as it reads now, without the bot's mention. */
  readonly text: string;
  /** The edit mentions the bot where the message did not before: an edit of a message already answered (or never for the bot) is then a new question. */
  readonly addsMention: boolean;
  readonly contextSource?: Readonly<Record<string, string>>;
  readonly sentOrder?: string;
}

/** A message was deleted (by its author, or a moderator: the platforms do not always say who). */
export interface DeletionInput {
  /** The deleted message's receipt, as MessageInput had it when it was sent. */
  readonly receipt: string;
}

/** What a surface says a person is looking at: its own words for it ("the channel <#C…>"), or nothing (the view is empty). */
export interface ViewingInput {
  readonly person: Person;
  /** The workspace (Slack team) the person is in, when the surface has several. */
  readonly workspace?: string;
  readonly viewing?: string;
}

export interface CommandInput {
  readonly at: Spot;
  readonly name: string;
  /** What followed the command's name (text surfaces) or its options (Discord). */
  readonly text: string;
  readonly options?: Readonly<Record<string, string>>;
}

/** A click on one of the bot's buttons; `clicked` is the surface's own view of the message. */
export interface Click<Clicked> {
  readonly at: Spot;
  readonly clicked: Clicked;
}

export type DecisionClick<Clicked> = Click<Clicked> & { readonly runId: string; readonly callId: string; readonly decision: Decision };
export type StopClick<Clicked> = Click<Clicked> & { readonly runId: string };
export type FeedbackClick<Clicked> = Click<Clicked> & { readonly runId: string; readonly guard: string; readonly rating: Rating };
/** Post here / Send to me privately / Drop on the preview of a held answer (runs/holds). */
export type HeldClick<Clicked> = Click<Clicked> & { readonly runId: string; readonly choice: HeldChoice };

/** What one of the bot's buttons names, as the surface read it from a click (each surface encodes it in its own form). */
export type Button =
  | { readonly kind: "decision"; readonly decision: Decision; readonly runId: string; readonly callId: string }
  | { readonly kind: "stop"; readonly runId: string }
  | { readonly kind: "feedback"; readonly rating: Rating; readonly runId: string; readonly guard: string }
  | { readonly kind: "form"; readonly action: FormAction; readonly formId: string }
  | { readonly kind: "held"; readonly choice: HeldChoice; readonly runId: string };

/** The guard a feedback button names: the one that stopped the run, or "none". */
export const guardOf = (stop: GuardStop | undefined): string => stop?.guard ?? "none";

/** The flows, as a surface calls them. Each resolves when the work is done (or, for intake, recorded); none rejects. */
export interface SurfaceCore<Clicked> {
  /** A question or a command word. Resolves once a question is recorded and queued (ack then); a command is answered after. */
  message(input: MessageInput): Promise<void>;
  /** A reply in a thread without a mention: taken as `message` in a thread the bot works in, else nothing. Resolves as `message` does. */
  followUp(input: FollowUpInput): Promise<void>;
  /** A message edited: the runs take it (core/changes.ts). Resolves once it is recorded (the ack then); rejects as `message` does. */
  edit(input: EditInput): Promise<void>;
  /** A message deleted: the runs drop or stop its question, and an answer goes with it where the settings say. Resolves once taken. */
  deletion(input: DeletionInput): Promise<void>;
  /** What a person is looking at changed (Slack's app_context_changed): kept for their next question in the DM. Never rejects. */
  viewing(input: ViewingInput): Promise<void>;
  /** A question that can't be a command (Discord's /ask). */
  question(input: MessageInput): Promise<void>;
  /** A named command (Discord's slash commands). */
  command(input: CommandInput): Promise<void>;
  decide(click: DecisionClick<Clicked>): Promise<void>;
  stop(click: StopClick<Clicked>): Promise<void>;
  feedback(click: FeedbackClick<Clicked>): Promise<void>;
  /** A choice on a held answer's preview. */
  held(click: HeldClick<Clicked>): Promise<void>;
  /** A 👎's comment, from the surface's form. */
  comment(runId: string, person: Person, text: string): Promise<void>;
  /** A button of a server's question: open its form, decline it or dismiss it. */
  form(click: FormClick<Clicked>): Promise<void>;
  /** The platform's form of a server's question was sent. */
  formSubmit(submission: FormSubmission): Promise<FormSubmitted>;
  /** A click on a button the surface could not read (an older version's, or forged). */
  badClick(at: Spot): Promise<void>;
  /** What the surface does with an event before it hands it on (an ack, a read of the channel): shutdown waits for it too. A failure is logged. */
  track(what: string, work: Promise<unknown>): void;
}

/** Hands a click to the flow its button names; `button` undefined: the surface could not read it. Never rejects. */
export function takeButton<Clicked>(core: SurfaceCore<Clicked>, click: Click<Clicked>, button: Button | undefined): Promise<void> {
  if (!button) return core.badClick(click.at);
  if (button.kind === "decision") return core.decide({ ...click, ...button });
  if (button.kind === "stop") return core.stop({ ...click, ...button });
  if (button.kind === "form") return core.form({ ...click, formId: button.formId, action: button.action });
  if (button.kind === "held") return core.held({ ...click, runId: button.runId, choice: button.choice });
  return core.feedback({ ...click, ...button });
}
