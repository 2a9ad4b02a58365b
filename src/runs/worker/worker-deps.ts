// What a worker is given to handle work items: named, typed objects, each one concern — the
// stores a run is kept in, the queue, how runs are shown (the surfaces), how a run is set up,
// what happens after an answer, who may ask (admission) and who may go on (the decision gate),
// the stops, the observers. Nothing here reaches into the service's wiring.
import type { PendingApproval, TaskOrigin } from "../../contracts/types.js";
import type { ConcurrentMessages } from "../../governance/channel-settings.js";
import type { Logger } from "../../logger.js";
import type { KeyValueStore } from "../../memory/types.js";
import type { ApprovalStore } from "../approvals/approval-store.js";
import type { AnswerHolds } from "../holds/answer-holds.js";
import type { DecisionGate } from "../approvals/decision-gate.js";
import type { WorkQueue } from "../queue/work-queue.js";
import type { ConversationMemory } from "../setup/conversation-memory.js";
import type { RunSetup } from "../setup/run-setup.js";
import type { Admission } from "./admission.js";
import type { RunObserver } from "./run-observer.js";
import type { RunShows } from "./run-shows.js";
import type { RunStops } from "./run-stops.js";
import type { WriteLedger } from "./write-ledger.js";

export interface WorkerDeps {
  /** Where intake records, checkpoints, answer marks and a click's reply handle live. */
  readonly store: KeyValueStore;
  /** Runs paused for a decision, their claims and their expiry. */
  readonly approvals: ApprovalStore;
  /** Each write's claimed → executing → done record: what may run again after a crash. */
  readonly ledger: WriteLedger;
  readonly queue: WorkQueue;
  /** Work items handled at once by this process. */
  readonly concurrency: number;
  readonly shows: RunShows;
  readonly setup: RunSetup;
  /** The writes after an answer (history, facts) and the hold `forget` waits on. */
  readonly memory: Pick<ConversationMemory, "afterAnswer" | "answering">;
  readonly admission: Admission;
  /** Whether a paused run may go on after its decision, asked as its resume runs. */
  readonly gate: Pick<DecisionGate, "goOn">;
  /** Stop requests for the runs this process drives (a person's Stop button, on any process). */
  readonly stops?: RunStops;
  /** Watch every run this process drives (metrics, traces, records, slot outcomes). */
  readonly observers: readonly RunObserver[];
  readonly logger: Logger;
  readonly clock: () => number;
  /** What a person's messages do while their conversation's run works (bursts, steering, interrupting). */
  readonly conversations: ConversationRules;
  /** The private Connect link of a run that waits for its requester to connect an MCP server (signed, single-use). */
  readonly connectLink?: (pending: PendingApproval) => Promise<string>;
  /** Answers that quote a place not everyone where they are posted can see (CROSS_CHANNEL_READS); absent: none is held. */
  readonly holds?: AnswerHolds;
}

export interface ConversationRules {
  /** MESSAGE_DEBOUNCE_MS: a person's messages each within this long of the one before, before a run starts, are one question; 0: off. */
  readonly debounceMs: number;
  /** The policy for a message that arrives while a run of its conversation is in flight, as the channel's settings have it. */
  policyFor(origin: TaskOrigin): ConcurrentMessages;
}
