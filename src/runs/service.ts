// What adapters call. Adapters only see this interface and the loop's events.
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
} from "../agent/types.js";
import type { Fact } from "../memory/types.js";
import type { Admission } from "../governance/run-policy.js";
import type { StopResult } from "./run-stops.js";
import type { FeedbackBook } from "../memory/feedback.js";
import type { FileDescriptor, SurfaceFiles } from "../files/file-ref.js";
import type { StoredAnswerFile } from "../files/file-store.js";

export interface Task {
  readonly origin: TaskOrigin;
  readonly text: string;
  /** Earlier messages of the platform thread the request came from, oldest first (already bounded by the adapter). */
  readonly threadContext?: readonly ChatMessage[];
  /**
   * Where the surface's context loader reads that thread (plain strings, kept in the intake
   * record): the worker loads it when the run starts, so nothing slow stands between the
   * platform's ack and the record.
   */
  readonly contextSource?: Readonly<Record<string, string>>;
  /** True when the adapter already got `admitted` from `admit` for this message (so it is not counted twice). */
  readonly admitted?: boolean;
  /** The files the message brought (and, in a thread reply, its root's), read when the run starts. */
  readonly files?: readonly FileDescriptor[];
}

export interface DecisionRequest {
  readonly runId: string;
  readonly callId: string;
  readonly decision: Decision;
  readonly decidedBy: Person;
  /** True when the adapter found the person among its configured approvers (ids, roles). */
  readonly isApprover: boolean;
  /** Where the rest of the run is shown, merged into its origin's place (Discord: the click's own interaction webhook). */
  readonly replyPlace?: Readonly<Record<string, string>>;
}

export type DecisionResult =
  /**
   * `outcome` is absent when the surface's presenter shows the rest of the run (it may run in another process);
   * `note` is for the person who decided (the decision is recorded, but the run could not go on at once).
   */
  | { readonly kind: "resumed"; readonly decision: Decision; readonly outcome?: RunOutcome; readonly note?: string }
  | { readonly kind: "not_allowed"; readonly requester: Person }
  | { readonly kind: "already_decided"; readonly decision: Decision; readonly decidedBy: Person }
  | { readonly kind: "expired"; readonly outcome?: RunOutcome }
  | { readonly kind: "unknown"; readonly message: string };

export interface StopRequest {
  readonly runId: string;
  readonly stoppedBy: Person;
  /** True when the adapter found the person among its configured approvers (ids, roles). */
  readonly isApprover: boolean;
  /** Where the rest of the run is shown, merged into its origin's place (Discord: the click's own interaction webhook). */
  readonly replyPlace?: Readonly<Record<string, string>>;
}

export type { StopResult };

export type ExpiryHandler = (pending: PendingApproval, outcome: RunOutcome) => void;

/** One line of `/tools`. */
export interface ToolListing {
  readonly name: string;
  /** The MCP server it comes from; undefined for the bot's own tools. */
  readonly server?: string;
  readonly effect: "read" | "write";
  /** False while its MCP server is down (its tools are not offered then). */
  readonly up: boolean;
}

/** One configured MCP server in `/tools`, also one that failed to start or never connected, with why. */
export interface ToolServerListing {
  readonly name: string;
  readonly state:
    | { readonly kind: "starting" }
    | { readonly kind: "up"; readonly via: string }
    | { readonly kind: "down" | "failed"; readonly reason: string };
  /** Tools known of it: the current ones while up, the last known ones otherwise. */
  readonly tools: number;
}

/** What `/tools` shows: the names are the ones the model is offered. */
export interface ToolList {
  readonly tools: readonly ToolListing[];
  readonly servers: readonly ToolServerListing[];
}

/** Where a surface posted a run's answer: the runner records it, so a replay of the run never answers twice. */
export interface PostedAnswer {
  readonly messageId: string;
}

/** Shows one run on a surface: built from the run's origin alone, so any process can show any run. */
export interface RunPresenter {
  /** Must not throw. */
  readonly sink: EventSink;
  /** Shows the outcome: the answer (telling the message it was posted as, when there is one), or the approval request. Must not throw. */
  finish(outcome: RunOutcome): Promise<PostedAnswer | undefined>;
  /** The run could not produce an outcome at all: tells the person so. Must not throw. */
  fail(error: unknown): Promise<void>;
}

/** Reads a task's thread context from its `contextSource` when its run starts. Must not throw (no context: []). */
export type ContextLoader = (source: Readonly<Record<string, string>>, origin: TaskOrigin) => Promise<readonly ChatMessage[]>;

/** Tells the asker privately that their message was refused (access, a limit); nothing else shows. Must not throw. */
export type RefusalNote = (origin: TaskOrigin, text: string) => Promise<void>;

/** `question` is the person's message (a surface may name the trace after it). */
export type PresenterFactory = (origin: TaskOrigin, question: string) => RunPresenter;

export type SubmitResult =
  /** Recorded and queued (or taken up again because the process that had it died). */
  | { readonly kind: "accepted"; readonly intakeId: string }
  /** A redelivery: the message is answered already, or its run is in progress. */
  | { readonly kind: "duplicate"; readonly intakeId: string; readonly state: "done" | "in_progress" };

export interface AgentService {
  /** Tools a surface brings (read_channel, post_message…); call before the adapter starts taking events. */
  registerSurfaceTools(surface: Surface, tools: readonly Tool[]): void;
  /**
   * Access and limits of the settings file for a new message (Discord roles of the asker when known).
   * Call before showing any progress; an admitted message counts against the per-minute limits.
   * `receipt` (the message's platform id) makes a redelivery get the same answer without counting again.
   */
  admit(origin: TaskOrigin, roles?: readonly string[], receipt?: string): Promise<Admission>;
  /** Refuses (with the refusal text as the answer, no model call) unless admitted or `task.admitted`. Serialised per conversation; resolves when the run answered or paused for approval. Never rejects for model or tool failures. */
  ask(task: Task, sink: EventSink): Promise<RunOutcome>;
  /** Loads the thread context of this surface's tasks that carry a `contextSource`, in the worker that runs them. */
  registerContextLoader(surface: Surface, loader: ContextLoader): void;
  /**
   * Shows runs of this surface that no caller in this process waits for (submitted, resumed after a
   * restart or on another process); `refusalNote` tells a refused asker privately (else the refusal is the answer).
   */
  registerPresenter(surface: Surface, factory: PresenterFactory, refusalNote?: RefusalNote): void;
  /**
   * Records a chat message under `receipt` (its platform id: the dedupe) and queues its run; the
   * surface's presenter shows it. A redelivery of a message that is done or running is not run again.
   * Rejects only when the store can't record it (nothing was queued).
   */
  submit(task: Task, receipt: string): Promise<SubmitResult>;
  /** Applies a decision at most once, across processes and restarts. */
  decide(request: DecisionRequest, sink: EventSink): Promise<DecisionResult>;
  /**
   * A person pressed Stop on a run in progress, on whichever process runs it: the model call or
   * reads in flight are cancelled, a write in flight finishes, and the run ends with its summary
   * and "Stopped by <name>." (shown by whoever shows the run). Only the requester or an approver.
   */
  stop(request: StopRequest): Promise<StopResult>;
  /** 👍 / 👎 on answers, shared by every process on the store; each vote is logged with the totals. */
  readonly feedback: FeedbackBook;
  /** Every tool a run on this surface may be offered (built in, the surface's, MCP servers' also while down), for `/tools`. */
  toolList(surface: Surface): ToolList;
  /** Called when a pending approval on this surface expired without a decision (the run's summary is in the outcome). */
  onApprovalExpired(surface: Surface, handler: ExpiryHandler): void;
  /**
   * How this surface's attachments are fetched and whether it posts an answer's files; without it a
   * task's files are notes and read_attachment / attach_file are not offered. Register in every role that runs work.
   */
  registerFiles(surface: Surface, files: SurfaceFiles): void;
  /** A file of an answer (`outcome.files`), for the surface to post; undefined once the store no longer has it. */
  answerFile(conversationKey: string, fileId: string): Promise<StoredAnswerFile | undefined>;
  rememberedFacts(conversationKey: string): Promise<readonly Fact[]>;
  /** Clears the conversation's long-term memory and its stored files; returns how many facts were removed. */
  forget(conversationKey: string): Promise<number>;
}

export type { AgentEvent };
