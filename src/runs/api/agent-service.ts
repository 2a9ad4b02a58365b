// What adapters call: the runs (attach, ask, submit, decide, stop), the conversation memory, the
// feedback book and the tool catalogue. Adapters only see this interface and the loop's events;
// service/create-agent-service.ts is its wiring.
import type { AgentEvent, EventSink, PendingApproval, Person, RunOutcome, Surface, TaskOrigin } from "../../contracts/types.js";
import type { StoredAnswerFile } from "../../files/file-store.js";
import type { FeedbackBook } from "../../memory/feedback.js";
import type { Fact } from "../../memory/types.js";
import type { ToolList } from "../../tools/tool-list.js";
import type { DecisionRequest, DecisionResult, StopRequest, StopResult } from "./decision-request.js";
import type { SurfaceHooks } from "./surface-hooks.js";
import type { SubmitResult, Task } from "./task.js";
import type { DeletionRequest, DeletionResult, EditRequest, EditResult } from "./edits.js";
import type { FormAnswers } from "../forms/form-answers.js";
import type { HeldChoice } from "../holds/held-answers.js";

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

/** Held answers (CROSS_CHANNEL_READS): whether one may be held, and a requester's choice, from any process. */
export interface HeldAnswerChoices {
  /**
   * Whether an answer asked at `origin` after reads of `channels` may be held (some channel other than where it is posted,
   * and CROSS_CHANNEL_READS is not `allow`): its text is then not streamed, as the hold looks at it whole.
   */
  mayHold(origin: TaskOrigin, channels: readonly string[]): boolean;
  /** Carries out `choice` when `by` asked the run; returns what to tell the person who clicked. Never rejects. */
  choose(runId: string, choice: HeldChoice, by: Person): Promise<string>;
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
/** One MCP server behind OAuth as a person sees it in `/connections`. */
export interface ConnectionListing {
  readonly server: string;
  /** When they connected it; absent when they have not. */
  readonly connectedAt?: number;
}

/** A person's connections to MCP servers that act as them (OAuth). */
export interface ServiceConnections {
  /** Every server that acts as the person, connected or not. */
  list(origin: TaskOrigin): Promise<readonly ConnectionListing[]>;
  /** `unknown`: no such server; `not_connected`: nothing to do; `disconnected`: tokens forgotten (revoked where the server offers it). */
  disconnect(origin: TaskOrigin, server: string): Promise<"disconnected" | "not_connected" | "unknown">;
}

export interface AgentService {
  /** Everything the surface brings; call once, before it takes events. */
  attach(surface: Surface, hooks: SurfaceHooks): void;
  /** Runs a task no surface presenter shows, for a caller that waits for it: access and limits first; resolves when it answered or paused. Never rejects for model or tool failures. */
  ask(task: Task, sink: EventSink): Promise<RunOutcome>;
  /**
   * Records a chat message under `receipt` (its platform id: the dedupe) and queues its run; the
   * worker checks access and limits, and the surface's presenter shows it. A redelivery of a
   * message that is done or running is not run again. Rejects with IntakeUnavailableError only when
   * the store or the queue can't take it: the platform should deliver it again (a redelivery of a
   * message recorded but not queued is queued then).
   */
  submit(task: Task, receipt: string): Promise<SubmitResult>;
  /**
   * A person edited a message: a question not started reads as edited, one whose run works gets the edit (recorded
   * before this resolves), one answered is left unless the edit mentions the bot. Audited. Rejects as `submit` does.
   */
  edit(edit: EditRequest): Promise<EditResult>;
  /**
   * A person deleted a message: a question not run is dropped, one running stops without a summary, one answered keeps
   * its answer unless DELETE_ANSWERS_WITH_QUESTION (then `answer` says where it is, for the surface to delete). Audited.
   */
  deleteQuestion(request: DeletionRequest): Promise<DeletionResult>;
  /** Applies a decision at most once, across processes and restarts; the authority says who may. */
  decide(request: DecisionRequest, sink: EventSink): Promise<DecisionResult>;
  /**
   * A person pressed Stop on a run in progress, on whichever process runs it: the model call or
   * reads in flight are cancelled, a write in flight finishes, and the run ends with its summary
   * and "Stopped by <name>." (shown by whoever shows the run). The authority says who may.
   */
  stop(request: StopRequest): Promise<StopResult>;
  /** A server's question to a run's requester: open it (only they may) and answer it once, from any process. */
  readonly forms: FormAnswers;
  /** An answer held because it quotes a more private place (CROSS_CHANNEL_READS=ask): its requester's choice, from any process. */
  readonly heldAnswers: HeldAnswerChoices;
  readonly memory: ServiceMemory;
  /** 👍 / 👎 on answers, shared by every process on the store; each vote is logged with the totals. */
  readonly feedback: FeedbackBook;
  readonly tools: ServiceTools;
  /** A file of an answer (`outcome.files`), for the surface to post; undefined once the store no longer has it. */
  answerFile(conversationKey: string, fileId: string): Promise<StoredAnswerFile | undefined>;
  /** Write calls in the conversation still waiting for a decision (also those a stopped process left), soonest expiry first. */
  waitingApprovals(conversationKey: string): Promise<readonly PendingApproval[]>;
  /** MCP servers that act as the person (absent when none is configured). */
  readonly connections?: ServiceConnections;
}

export interface Forgotten {
  readonly facts: number;
  readonly turns: number;
  readonly files: number;
}

export type { AgentEvent };
