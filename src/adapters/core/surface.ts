// The one interface a chat platform implements under the core, modelled on how the Chat SDK
// (vercel/chat) puts an `Adapter` per platform under one `Chat`: the platform keeps its
// transport, the parsing of its untrusted payloads into the core's types, and the rendering of
// the core's cards; every flow (intake, approvals, Stop, feedback, commands, the run view) is
// written once in this folder. The platform's place codec is the only reader of
// `TaskOrigin.place`; everything else reads the neutral scope it writes at intake.
import type { z } from "zod";
import type { AgentEvent, PendingForm, Person, RunOutcome, Surface, TaskOrigin, Tool } from "../../contracts/types.js";
import type { SurfaceFiles } from "../../files/file-ref.js";
import type { LinkStyle } from "../../governance/command-text.js";
import type { Presence } from "../../schedules/ports.js";
import type { Logger } from "../../logger.js";
import type { ContextLoader, OriginUpgrade } from "../../runs/api/surface-hooks.js";
import type { NoteLink, PostedAnswer } from "../../runs/api/presenting.js";
import type { ReplyHandle } from "../../runs/api/task.js";
import type { AudienceReader } from "../../runs/api/audiences.js";
import type { Draft } from "./answer-draft.js";
import type { AnswerCard, ApprovalCard, Progress, SettledCard } from "./cards.js";
import type { SurfaceCore } from "./inbound.js";
import type { LeftOpen } from "./unfinished-messages.js";

/** What every platform surface is built with. */
export interface SurfaceDeps {
  readonly logger: Logger;
  /** False for BOT_ROLE=worker: it posts and presents runs, but takes no events (no route, socket or gateway: clicks and commands go to ingress processes); default true. */
  readonly takeEvents?: boolean;
  /** The connection to the platform went down or came back (readiness). Must not throw. */
  readonly onConnection?: (state: "up" | "down", reason?: string) => void;
}

/** How a surface takes people's files in (download) and, with `uploads`, posts an answer's files with `RunDisplay.answer`. */
export interface SurfaceFileSupport extends SurfaceFiles {
  /** The largest file the platform takes from the bot (bytes): a bigger answer file is refused before any request, with a note. */
  readonly uploadLimitBytes?: number;
}

import type { Spot } from "./spot.js";

/** How the core writes text on this surface. Every function is pure. */
export interface TextFormat {
  /** Text people or models wrote, shown as written: escaped, and pinging nobody. */
  plain(text: string): string;
  /** Names one person (renders as their name; the surface decides who gets pinged). */
  person(id: string): string;
  /** Names a role (Discord); the surface's own words elsewhere. */
  role(id: string): string;
  /** Inline code. */
  code(text: string): string;
  /** A block of plain text shown verbatim. */
  block(text: string): string;
  link(url: string, label: string): string;
  /** The model's text as an answer shows here (Slack: its Markdown as mrkdwn, crowd mentions made harmless). */
  answer(text: string): string;
  /** One message holds at most this many characters. */
  readonly maxChars: number;
}

/**
 * How one run shows on a surface, built from its origin alone (any process can build it). A failure of any call is logged by the core (an answer's in full).
 * What the model writes shows in the draft (answer-draft.ts): each segment where the surface writes text, sealed ones as
 * they are, the live one growing; `answer` then completes the live one (or, with none, posts the answer).
 */
export interface RunDisplay<Ref> {
  /** How often `progress` may be called, and any one message edited; the core throttles to it. */
  readonly progressIntervalMs: number;
  /** The first tool call and the first text go to messages of their own: they show without waiting out the interval. */
  readonly firstsAtOnce?: boolean;
  /** The run's newest progress, its draft included. Never called twice at the same time. A failure is logged by the core. */
  progress(progress: Progress): Promise<void>;
  /** Shows at once that the run started, outside the progress interval (so its first step shows at once too); without it, that is the first progress. Never throws. */
  begin?(): void;
  /** Each of the run's events as it comes, unthrottled, for a surface that prints a run as a transcript (the console's lines). Must not throw. */
  event?(event: AgentEvent): void;
  /** The draft each time it changes, unthrottled, right after the event that changed it, for a transcript. Must not throw. */
  draft?(draft: Draft): void;
  /** The run ended: its progress (status, Stop button) goes and its trace shows as it ended (`last`: the newest progress, maybe never shown). */
  endProgress(outcome: RunOutcome, last: Progress): Promise<void>;
  /** The answer, with 👍 / 👎 and the trace, and its files (uploaded in the answer's thread). Rejects, or resolves undefined once the surface logged it in full, when it could not be posted. */
  answer(card: AnswerCard): Promise<PostedAnswer | undefined>;
  /** The approval request with its buttons; where it is, for the expiry and late clicks (undefined: not posted). */
  approval(card: ApprovalCard): Promise<Ref | undefined>;
  /**
   * A server's question to the run's requester, shown to them alone (core/forms.ts writes its text): a button that opens
   * the platform's form, Decline and Dismiss; or a link. Without it the question waits unseen until it expires. Never throws.
   */
  form?(form: PendingForm): Promise<void>;
  /** The run failed without an outcome: says so in general words. */
  failure(): Promise<void>;
  /** The answer of `runId` already in the conversation (see RunPresenter.findAnswer); where the platform can tell. Must not throw. */
  findAnswer?(runId: string): Promise<PostedAnswer | undefined>;
  /**
   * The messages it holds open right now, and the threads where a write of it may start a stream (unfinished-messages.ts):
   * read before its first write and after each one; the threads are left out once its writes are over.
   */
  unfinished?(): readonly LeftOpen[];
  /** Ends what a process that died during this run left open: stopped, a text marked as answered again below. Never throws. */
  settleUnfinished?(left: readonly LeftOpen[]): Promise<void>;
}

/** What a run's display is built from: `below` is the approval message an expired run's summary goes under. */
export interface DisplayRequest<Ref> {
  readonly origin: TaskOrigin;
  readonly question: string;
  readonly reply?: ReplyHandle;
  readonly below?: Ref;
}

/** The approval message to settle: the one clicked (the surface's own view of it), or one found from its stored reference. */
export type ApprovalMessage<Clicked, Ref> = { readonly clicked: Clicked } | { readonly ref: Ref };

/**
 * A chat platform. `Clicked` is what the surface knows of a clicked message (to edit it),
 * `Ref` where it posted an approval request (kept in the store, checked with `refSchema`).
 */
export interface ChatSurface<Clicked = unknown, Ref = unknown> {
  readonly name: Surface;
  readonly format: TextFormat;
  /** How links are written in the audit listing. */
  readonly linkStyle: LinkStyle;
  /**
   * The surface serves several workspaces (a Slack app installed in several, Discord's servers): the audit and the
   * feedback a command shows are those of the asker's workspace alone. Absent: one workspace (SLACK_BOT_TOKEN), as before.
   */
  readonly manyWorkspaces?: boolean;
  /** How to ask the bot something here, for the reply to an empty mention. */
  readonly askHint: string;
  /** How a command is typed here, before its name ("/" where commands are slash commands); none by default (`unschedule <id>`). */
  readonly commandMark?: string;
  /** Where a schedule's results show, when not in a channel's threads (the console prints them between the person's lines). */
  readonly scheduleResultsWhere?: string;
  /** The chat tools (core/chat-tools.ts over the surface's reads and posts). */
  readonly tools: readonly Tool[];
  readonly loadContext?: ContextLoader;
  /** Files in and out; without it a message's files are not looked at and answers carry none. */
  readonly files?: SurfaceFileSupport;
  /** The platform delivers a message again when it was not acknowledged (Slack's retries): see core/intake.ts. */
  readonly redelivers?: boolean;
  /** The place codec's reading of an origin stored by an older version. */
  readonly upgrade: OriginUpgrade;
  /** Approval message references: the store keys' prefix and the schema stored ones are checked against. */
  readonly refs: { readonly keyPrefix: string; readonly schema: z.ZodType<Ref> };

  /** Starts taking events and hands each to `core`. Resolves once connected. */
  start(core: SurfaceCore<Clicked>): Promise<void>;
  /** Stops taking new events (a port answers 503, a socket closes); posting still works. Must not throw. */
  stopIntake(): Promise<void>;
  /** Releases the platform clients: nothing can be posted after it. Must not throw. */
  close(): Promise<void>;

  /** How a run shows, from whichever process runs it. */
  display?(request: DisplayRequest<Ref>): RunDisplay<Ref>;
  /** Text for everyone in the conversation of `at` (a command's reply, where that is private on the platform). False when refused. Must not throw. */
  post(at: Spot, text: string): Promise<boolean>;
  /**
   * The platform's own private message to the person at `at` (ephemeral); false where there is none or it was refused.
   * `link`: shown as a link button where the platform has them (`text` writes it out for where it does not). Must not throw.
   */
  whisper(at: Spot, text: string, link?: NoteLink): Promise<boolean>;
  /** A direct message from the bot, in the workspace or server of `where` (the person's; `link` as in `whisper`); false when refused. Must not throw. */
  directMessage(person: Person, text: string, where: TaskOrigin, link?: NoteLink): Promise<boolean>;
  /** The approval message without its buttons, saying what happened. Must not throw. */
  settleApproval(message: ApprovalMessage<Clicked, Ref>, card: SettledCard): Promise<void>;
  /** A link to the clicked message, for the feedback listing. */
  linkTo?(at: Spot, clicked: Clicked): Promise<string | undefined>;
  /** Opens the platform's form for a server's question (its fields); false when it can't (the click's trigger expired). Must not throw. */
  openForm?(clicked: Clicked, form: PendingForm): Promise<boolean>;
  /** Answers, privately, a form's open click it left unanswered for its form (Discord); false: the core tells as usual. Must not throw. */
  answerOpenClick?(clicked: Clicked, text: string): Promise<boolean>;
  /**
   * Who can see a place here: an answer quoting a place not everyone where it is posted can see is held (runs/holds).
   * Absent (or without `offerHeld`): nothing is held on this surface (the console).
   */
  readonly audiences?: AudienceReader;
  /**
   * A held answer's preview (cut to `format.maxChars` by the core) to the requester of `origin` alone, with Post here,
   * Send to me privately and Drop for `runId`; false when refused. Must not throw.
   */
  offerHeld?(origin: TaskOrigin, preview: string, runId: string): Promise<boolean>;
  /** Opens the platform's form for a 👎 comment; false when it can't. Must not throw. */
  askComment?(runId: string, clicked: Clicked): Promise<boolean>;
  /**
   * Deletes what the bot posted for a run whose question was deleted (DELETE_ANSWERS_WITH_QUESTION): its answer (`answer`,
   * where it is known) and its trace, in the run's thread. Must not throw.
   */
  deleteAnswer?(origin: TaskOrigin, answer: PostedAnswer | undefined): Promise<void>;
  /** Posts `heading` as a new message in the channel of `origin` and answers the place of the thread under it (a schedule's slot shows there). Undefined when refused. Must not throw. */
  openSlotThread?(origin: TaskOrigin, heading: string): Promise<Readonly<Record<string, string>> | undefined>;
  /** The person's own timezone from their profile (an IANA name), asked when a schedule's phrase names none. Must not throw. */
  timeZoneOf?(person: Person, origin: TaskOrigin): Promise<string | undefined>;
  /** Whether a schedule's owner is still there (workspace, server) and the bot still in its channel, at fire time. Must not throw. */
  presenceOf?(owner: Person, origin: TaskOrigin): Promise<Presence>;
}
