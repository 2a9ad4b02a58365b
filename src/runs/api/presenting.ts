// How a run is shown on a surface: the presenter built from a run's origin (so any process can
// show any run), what it says back once it posted, and the surface's private notes.
import type { EventSink, PendingApproval, RunOutcome, ScheduledSlot, TaskOrigin } from "../../contracts/types.js";
import type { ReplyHandle } from "./task.js";

export type ExpiryHandler = (pending: PendingApproval, outcome: RunOutcome) => void;

/** Where a surface posted a run's answer: the runner records it, so a replay of the run never answers twice. */
export interface PostedAnswer {
  readonly messageId: string;
}

/** A presenter's word that an answer could not be posted: the message stays unfinished, so the next start answers it. */
export interface Unposted {
  readonly unposted: true;
}
export const UNPOSTED: Unposted = { unposted: true };

/** Shows one run on a surface: built from the run's origin alone, so any process can show any run. */
export interface RunPresenter {
  /** Must not throw. */
  readonly sink: EventSink;
  /**
   * Shows the outcome: the answer (telling the message it was posted as, when there is one), or
   * the approval request. Must not throw. UNPOSTED for an answer that could not be posted.
   */
  finish(outcome: RunOutcome): Promise<PostedAnswer | Unposted | undefined>;
  /** The run could not produce an outcome at all: tells the person so. Must not throw. */
  fail(error: unknown): Promise<void>;
  /** The run ended with nothing to post (a schedule's `[SILENT]`): its progress ends where it was shown, nothing else. Must not throw. */
  settleQuietly?(outcome: RunOutcome): Promise<void>;
  /**
   * The answer of `runId` the platform already holds, when a process posted it and died before marking it
   * (answer-marks.ts); asked only when a run is taken up again. Never throws: undefined when none or it can't tell.
   */
  findAnswer?(runId: string): Promise<PostedAnswer | undefined>;
}

/**
 * A link button under a private note (a Connect link), where the platform shows one. The note's
 * text writes the link out, for where buttons do not show (notifications, the console).
 */
export interface NoteLink {
  /** The button's words ("Connect docs"). */
  readonly label: string;
  readonly url: string;
  /** The note as shown with the button, which stands for the link the text writes out. */
  readonly caption: string;
}

/** Tells the asker privately that their message was refused (access, a limit); nothing else shows. Must not throw. */
export type RefusalNote = (origin: TaskOrigin, text: string, reply?: ReplyHandle) => Promise<void>;

/** `question` is the person's message (a surface may name the trace after it); `reply` how to answer it, if the surface has one. */
export type PresenterFactory = (origin: TaskOrigin, question: string, reply?: ReplyHandle) => RunPresenter;

/** How a schedule's slot run is shown around the surface's presenter (the schedules engine gives it). */
export type SlotShow = (shown: RunPresenter, slot: ScheduledSlot) => RunPresenter;
