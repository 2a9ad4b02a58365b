// What surfaces call. Surfaces only see this interface and the loop's events.
import type {
  AgentEvent,
  ChatMessage,
  Decision,
  EventSink,
  PendingApproval,
  Person,
  RunOutcome,
  Surface,
  TaskOrigin,
  Tool,
} from "../contracts/types.js";
import type { Fact } from "../memory/types.js";
import type { StopResult } from "./run-stops.js";
import type { FeedbackBook } from "../memory/feedback.js";
import type { FileDescriptor, SurfaceFiles } from "../files/file-ref.js";
import type { StoredAnswerFile } from "../files/file-store.js";
import type { ToolList } from "../tools/tool-list.js";

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
}

/** A surface's own handle for answering one message or click; opaque to everything but that surface. */
export type ReplyHandle = Readonly<Record<string, string>>;

export interface DecisionRequest {
  readonly runId: string;
  readonly callId: string;
  readonly decision: Decision;
  readonly decidedBy: Person;
  /** The person's roles where they clicked (Discord), for the authority's approver roles. */
  readonly roles?: readonly string[];
  /** How the surface answers through the click (Discord: its own interaction token), for the rest of the run. */
  readonly reply?: ReplyHandle;
}

export type DecisionResult =
  /**
   * `outcome` is absent when the surface's presenter shows the rest of the run (it may run in another process);
   * `note` is for the person who decided (the decision is recorded, but the run could not go on at once).
   */
  | { readonly kind: "resumed"; readonly decision: Decision; readonly outcome?: RunOutcome; readonly note?: string }
  | { readonly kind: "not_allowed"; readonly requester: Person }
  /** Governance refuses the person deciding now (access, a daily limit): `text` tells them why, privately; nothing changed. */
  | { readonly kind: "refused"; readonly text: string }
  | { readonly kind: "already_decided"; readonly decision: Decision; readonly decidedBy: Person }
  | { readonly kind: "expired"; readonly outcome?: RunOutcome }
  | { readonly kind: "unknown"; readonly message: string };

export interface StopRequest {
  readonly runId: string;
  readonly stoppedBy: Person;
  /** Where the Stop was pressed: the run's own surface. */
  readonly surface: Surface;
  /** The person's roles there (Discord), for the authority's approver roles. */
  readonly roles?: readonly string[];
}

export type { StopResult };

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

/** Reads a task's thread context from its `contextSource` when its run starts. Must not throw (no context: []). */
export type ContextLoader = (source: Readonly<Record<string, string>>, origin: TaskOrigin) => Promise<readonly ChatMessage[]>;

/** Tells the asker privately that their message was refused (access, a limit); nothing else shows. Must not throw. */
export type RefusalNote = (origin: TaskOrigin, text: string, reply?: ReplyHandle) => Promise<void>;

/** `question` is the person's message (a surface may name the trace after it); `reply` how to answer it, if the surface has one. */
export type PresenterFactory = (origin: TaskOrigin, question: string, reply?: ReplyHandle) => RunPresenter;

/** An origin stored by an older version, as this version reads it: with its scope, and no secret left in its place. */
export type OriginUpgrade = (origin: TaskOrigin) => { readonly origin: TaskOrigin; readonly reply?: ReplyHandle };

/** Everything a surface brings to the runs, registered once (src/adapters/core/attach.ts). */
export interface SurfaceHooks {
  /** The surface's chat tools (read_channel, post_message…). */
  readonly tools: readonly Tool[];
  /** Shows runs no caller in this process waits for (submitted, resumed after a restart or on another process). */
  readonly present?: PresenterFactory;
  /** The person's own runs are always waited for by their caller (the console's prompt): `present` shows only what a schedule started. */
  readonly waitsForOwnRuns?: boolean;
  /** Tells a refused asker privately; without it the refusal is the run's answer. */
  readonly refuse?: RefusalNote;
  readonly loadContext?: ContextLoader;
  /** A pending approval on this surface expired without a decision (the run's summary is in the outcome). */
  readonly expired?: ExpiryHandler;
  readonly upgrade?: OriginUpgrade;
  /**
   * How this surface's attachments are fetched and whether it posts an answer's files; without it a
   * task's files are notes and read_attachment / attach_file are not offered. Give it in every role that runs work.
   */
  readonly files?: SurfaceFiles;
}

export type SubmitResult =
  /** Recorded and queued (or taken up again because the process that had it died). */
  | { readonly kind: "accepted"; readonly intakeId: string }
  /** A redelivery: the message is answered already, or its run is in progress. */
  | { readonly kind: "duplicate"; readonly intakeId: string; readonly state: "done" | "in_progress" };

/** What a conversation remembers, for the commands (`/memory`, `/forget`, the console's `/new`). */
export interface ServiceMemory {
  facts(conversationKey: string): Promise<readonly Fact[]>;
  /** Clears what the conversation remembers: its facts, its history of turns and its stored files (attached and answer files); says how many of each went. */
  forget(conversationKey: string): Promise<Forgotten>;
  /** How many earlier turns the next run in the conversation is given. */
  earlierTurns(conversationKey: string): Promise<number>;
  /** A fresh conversation under the same key: its earlier turns are dropped, its facts stay; returns how many turns went. */
  startOver(conversationKey: string): Promise<number>;
}

export interface ServiceTools {
  /**
   * Every tool a run on this surface may be offered (built in, the surface's, MCP servers' also while down), each with
   * its effect after policy, for `/tools`; with `origin`, as that conversation's channel settings have it.
   */
  list(surface: Surface, origin?: TaskOrigin): ToolList;
}

/**
 * The service surfaces talk to, by concern: the runs (attach, ask, submit, decide, stop) at the
 * top, then the conversation memory, the feedback book and the tool catalogue.
 */
export interface AgentService {
  /** Everything the surface brings; call once, before it takes events. */
  attach(surface: Surface, hooks: SurfaceHooks): void;
  /** Runs a task no surface presenter shows (the console): access and limits first; resolves when it answered or paused. Never rejects for model or tool failures. */
  ask(task: Task, sink: EventSink): Promise<RunOutcome>;
  /**
   * Records a chat message under `receipt` (its platform id: the dedupe) and queues its run; the
   * worker checks access and limits, and the surface's presenter shows it. A redelivery of a
   * message that is done or running is not run again. Rejects with IntakeUnavailableError only when
   * the store or the queue can't take it: the platform should deliver it again (a redelivery of a
   * message recorded but not queued is queued then).
   */
  submit(task: Task, receipt: string): Promise<SubmitResult>;
  /** Applies a decision at most once, across processes and restarts; the authority says who may. */
  decide(request: DecisionRequest, sink: EventSink): Promise<DecisionResult>;
  /**
   * A person pressed Stop on a run in progress, on whichever process runs it: the model call or
   * reads in flight are cancelled, a write in flight finishes, and the run ends with its summary
   * and "Stopped by <name>." (shown by whoever shows the run). The authority says who may.
   */
  stop(request: StopRequest): Promise<StopResult>;
  readonly memory: ServiceMemory;
  /** 👍 / 👎 on answers, shared by every process on the store; each vote is logged with the totals. */
  readonly feedback: FeedbackBook;
  readonly tools: ServiceTools;
  /** A file of an answer (`outcome.files`), for the surface to post; undefined once the store no longer has it. */
  answerFile(conversationKey: string, fileId: string): Promise<StoredAnswerFile | undefined>;
  /** Write calls in the conversation still waiting for a decision (also those a stopped process left), soonest expiry first. */
  waitingApprovals(conversationKey: string): Promise<readonly PendingApproval[]>;
}

export interface Forgotten {
  readonly facts: number;
  readonly turns: number;
  readonly files: number;
}

export type { AgentEvent };
