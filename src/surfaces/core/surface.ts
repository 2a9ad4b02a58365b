// The one interface a chat platform implements under the core, modelled on how the Chat SDK
// (vercel/chat) puts an `Adapter` per platform under one `Chat`: the platform keeps its
// transport, the parsing of its untrusted payloads into the core's types, and the rendering of
// the core's cards; every flow (intake, approvals, Stop, feedback, commands, the run view) is
// written once in this folder. The platform's place codec is the only reader of
// `TaskOrigin.place`; everything else reads the neutral scope it writes at intake.
import type { z } from "zod";
import type { PendingApproval, Person, RunOutcome, Surface, TaskOrigin, Tool } from "../../agent/types.js";
import type { LinkStyle } from "../../governance/command-text.js";
import type { ContextLoader, OriginUpgrade, PostedAnswer, ReplyHandle } from "../../runs/service.js";
import type { AnswerCard, ApprovalCard, Progress, SettledCard } from "./cards.js";
import type { SurfaceCore } from "./inbound.js";

/** Where the bot answers someone: the conversation (an origin whose requester is the person acting) and, for a live interaction, its handle. */
export interface Spot {
  readonly origin: TaskOrigin;
  readonly reply?: ReplyHandle;
}

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
  /** One message holds at most this many characters. */
  readonly maxChars: number;
}

/** How one run shows on a surface, built from its origin alone (any process can build it). */
export interface RunDisplay<Ref> {
  /** How often `progress` may be called; the core throttles to it. */
  readonly progressIntervalMs: number;
  /** The run's newest progress. Never called twice at the same time. A failure is logged by the core. */
  progress(progress: Progress): Promise<void>;
  /** Shows at once that the run started, outside the progress interval (so its first step shows at once too); without it, that is the first progress. Never throws. */
  begin?(): void;
  /** The run ended: its progress (status, Stop button) goes and its trace shows as it ended (`last`: the newest progress, maybe never shown). Must not throw. */
  endProgress(outcome: RunOutcome, last: Progress): Promise<void>;
  /** The answer, with 👍 / 👎 and the trace. Undefined when it could not be posted (logged in full). Must not throw. */
  answer(card: AnswerCard): Promise<PostedAnswer | undefined>;
  /** The approval request with its buttons; where it is, for the expiry and late clicks. Must not throw. */
  approval(card: ApprovalCard): Promise<Ref | undefined>;
  /** The run failed without an outcome: says so in general words. Must not throw. */
  failure(): Promise<void>;
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
  /** How to ask the bot something here, for the reply to an empty mention. */
  readonly askHint: string;
  /** The chat tools (core/chat-tools.ts over the surface's reads and posts). */
  readonly tools: readonly Tool[];
  readonly loadContext?: ContextLoader;
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

  /** How a run shows; absent when the caller that asked always waits for its runs (the console). */
  display?(request: DisplayRequest<Ref>): RunDisplay<Ref>;
  /** Text for everyone in the conversation of `at` (a command's reply, where that is private on the platform). False when refused. Must not throw. */
  post(at: Spot, text: string): Promise<boolean>;
  /** The platform's own private message to the person at `at` (ephemeral); false where there is none or it was refused. Must not throw. */
  whisper(at: Spot, text: string): Promise<boolean>;
  /** A direct message from the bot; false when refused. Must not throw. */
  directMessage(person: Person, text: string): Promise<boolean>;
  /** The approval message without its buttons, saying what happened. Must not throw. */
  settleApproval(message: ApprovalMessage<Clicked, Ref>, card: SettledCard): Promise<void>;
  /** A link to the clicked message, for the feedback listing. */
  linkTo?(at: Spot, clicked: Clicked): Promise<string | undefined>;
  /** Opens the platform's form for a 👎 comment; false when it can't. Must not throw. */
  askComment?(runId: string, clicked: Clicked): Promise<boolean>;
  /** Shows an expired approval itself (the console, whose prompt waits for it); otherwise the core settles its message and shows the summary. */
  expired?(pending: PendingApproval, outcome: RunOutcome): void;
}
