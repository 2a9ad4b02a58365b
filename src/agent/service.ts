// What adapters call. Adapters only see this interface and the loop's events.
import type { AgentEvent, ChatMessage, Decision, EventSink, PendingApproval, Person, RunOutcome, Surface, TaskOrigin, Tool } from "./types.js";
import type { Fact } from "../memory/types.js";

export interface Task {
  readonly origin: TaskOrigin;
  readonly text: string;
  /** Earlier messages of the platform thread the request came from, oldest first (already bounded by the adapter). */
  readonly threadContext?: readonly ChatMessage[];
}

export interface DecisionRequest {
  readonly runId: string;
  readonly callId: string;
  readonly decision: Decision;
  readonly decidedBy: Person;
  /** True when the adapter found the person among its configured approvers (ids, roles). */
  readonly isApprover: boolean;
}

export type DecisionResult =
  | { readonly kind: "resumed"; readonly decision: Decision; readonly outcome: RunOutcome }
  | { readonly kind: "not_allowed"; readonly requester: Person }
  | { readonly kind: "already_decided"; readonly decision: Decision; readonly decidedBy: Person }
  | { readonly kind: "expired"; readonly outcome: RunOutcome }
  | { readonly kind: "unknown"; readonly message: string };

export type ExpiryHandler = (pending: PendingApproval, outcome: RunOutcome) => void;

export interface AgentService {
  /** Tools a surface brings (read_channel, post_message…); call before the adapter starts taking events. */
  registerSurfaceTools(surface: Surface, tools: readonly Tool[]): void;
  /** Serialised per conversation; resolves when the run answered or paused for approval. Never rejects for model or tool failures. */
  ask(task: Task, sink: EventSink): Promise<RunOutcome>;
  /** Applies a decision at most once, across processes and restarts. */
  decide(request: DecisionRequest, sink: EventSink): Promise<DecisionResult>;
  /** Called when a pending approval on this surface expired without a decision (the run's summary is in the outcome). */
  onApprovalExpired(surface: Surface, handler: ExpiryHandler): void;
  rememberedFacts(conversationKey: string): Promise<readonly Fact[]>;
  /** Clears the conversation's long-term memory; returns how many facts were removed. */
  forget(conversationKey: string): Promise<number>;
}

export type { AgentEvent };
