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
} from "../agent/types.js";
import type { Fact } from "../memory/types.js";
import type { StopResult } from "./run-stops.js";
import type { FeedbackBook } from "../memory/feedback.js";

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
}

/** Reads a task's thread context from its `contextSource` when its run starts. Must not throw (no context: []). */
export type ContextLoader = (source: Readonly<Record<string, string>>, origin: TaskOrigin) => Promise<readonly ChatMessage[]>;

/** Tells the asker privately that their message was refused (access, a limit); nothing else shows. Must not throw. */
export type RefusalNote = (origin: TaskOrigin, text: string, reply?: ReplyHandle) => Promise<void>;

/** `question` is the person's message (a surface may name the trace after it); `reply` how to answer it, if the surface has one. */
export type PresenterFactory = (origin: TaskOrigin, question: string, reply?: ReplyHandle) => RunPresenter;

/** An origin stored by an older version, as this version reads it: with its scope, and no secret left in its place. */
export type OriginUpgrade = (origin: TaskOrigin) => { readonly origin: TaskOrigin; readonly reply?: ReplyHandle };

/** Everything a surface brings to the runs, registered once (src/surfaces/core/attach.ts). */
export interface SurfaceHooks {
  /** The surface's chat tools (read_channel, post_message…). */
  readonly tools: readonly Tool[];
  /** Shows runs no caller in this process waits for (submitted, resumed after a restart or on another process). */
  readonly present?: PresenterFactory;
  /** Tells a refused asker privately; without it the refusal is the run's answer. */
  readonly refuse?: RefusalNote;
  readonly loadContext?: ContextLoader;
  /** A pending approval on this surface expired without a decision (the run's summary is in the outcome). */
  readonly expired?: ExpiryHandler;
  readonly upgrade?: OriginUpgrade;
}

export type SubmitResult =
  /** Recorded and queued (or taken up again because the process that had it died). */
  | { readonly kind: "accepted"; readonly intakeId: string }
  /** A redelivery: the message is answered already, or its run is in progress. */
  | { readonly kind: "duplicate"; readonly intakeId: string; readonly state: "done" | "in_progress" };

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
  /** 👍 / 👎 on answers, shared by every process on the store; each vote is logged with the totals. */
  readonly feedback: FeedbackBook;
  /** Every tool a run on this surface may be offered (built in, the surface's, MCP servers' also while down), for `/tools`. */
  toolList(surface: Surface): ToolList;
  rememberedFacts(conversationKey: string): Promise<readonly Fact[]>;
  /** Clears the conversation's long-term memory; returns how many facts were removed. */
  forget(conversationKey: string): Promise<number>;
}

export type { AgentEvent };
