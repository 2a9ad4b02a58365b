// The loop's own types: what it needs (LoopDeps), how it starts and resumes, what it hands back,
// and how the runner keeps it durable. In a file of their own so the loop's parts (active-run,
// run-context, usage-meter, approval-resolution) depend on them, not on the loop.
import type { Logger } from "../../logger.js";
import type { TokenCounter } from "../../tokens/token-counter.js";
import type { RunState } from "./run-state.js";
import type { SourcedText } from "../../contracts/provenance.js";
import type { UntrustedWritesMode } from "../context/untrusted-writes.js";
import type { ToolPolicy } from "../tools/tool-policy.js";
import type { ToolRegistry } from "../tools/tool-registry.js";
import type {
  AddedMessage,
  AnswerFileSink,
  ChatMessage,
  ContentPart,
  Decision,
  GuardStop,
  Model,
  PendingApproval,
  Person,
  PersonForms,
  RunOutcome,
  TaskOrigin,
} from "../../contracts/types.js";

export interface LoopLimits {
  readonly maxSteps: number;
  readonly maxConsecutiveErrors: number;
  readonly oscillationWindow: number;
  /** The model's context window in tokens. */
  readonly contextWindow: number;
  readonly reservedOutputTokens: number;
  readonly runTimeoutMs: number;
}

export interface LoopDeps {
  readonly model: Model;
  readonly tools: ToolRegistry;
  readonly counter: TokenCounter;
  readonly limits: LoopLimits;
  readonly policy: ToolPolicy;
  readonly approvalTimeoutMs: number;
  /** What a write whose arguments came from content someone else wrote may do (UNTRUSTED_WRITES); default `warn`. */
  readonly untrustedWrites?: UntrustedWritesMode;
  readonly logger: Logger;
  /** Wall clock for expiry times; defaults to Date.now. */
  readonly clock?: () => number;
  /**
   * Told the model tokens used since its last call (reported by the server, else counted) before
   * each step and once at the end; a stop it returns ends the run with the summary. Must not throw.
   */
  readonly usageCheck?: (run: { readonly runId: string; readonly origin: TaskOrigin }, tokens: number) => Promise<GuardStop | undefined>;
  /** Where tools put files for the answer; absent where the surface can't post files. */
  readonly answerFiles?: AnswerFileSink;
  /** How a call's tool asks the run's requester (an MCP server's form); absent where nobody can be asked. */
  readonly forms?: PersonForms;
}

export interface RunStart {
  readonly runId: string;
  readonly origin: TaskOrigin;
  readonly question: string;
  /** System prompt and earlier turns; the loop appends the question. */
  readonly context: readonly ChatMessage[];
  /**
   * The files the person attached, as parts that follow the question's text. Called once, before the
   * first step, with a signal that aborts at the run's deadline or a Stop: the time it takes (downloads)
   * counts against the run. Must not reject (a file that fails is a note among the parts).
   */
  readonly attachments?: (signal: AbortSignal) => Promise<readonly ContentPart[]>;
  /** The boundary the context's data blocks were made with (context/data-blocks.ts); absent: the run draws one. */
  readonly boundary?: string;
  /** The context's texts from others (the thread, remembered facts) with their sources, for the write origins. */
  readonly sources?: readonly SourcedText[];
}

export type Resolution =
  | { readonly kind: "decided"; readonly decision: Decision; readonly decidedBy: Person }
  | { readonly kind: "expired" }
  /** The run may not go on after its decision (its requester or channel lost access, a limit is reached): it ends with `stop`. */
  | { readonly kind: "refused"; readonly stop: GuardStop };

export interface LoopResult {
  readonly outcome: RunOutcome;
  /** The state to store when the outcome is `paused`. */
  readonly state: RunState;
}

/** How the runner keeps a run durable; the loop knows nothing of where the state goes. */
export interface RunHooks {
  /** Called with the state before a new run's first step and after every completed step; the run waits for it (it should not throw). */
  readonly checkpoint?: (state: RunState) => Promise<void>;
  /** Checked after each checkpoint: once aborted the run stops there (RunInterruptedError), to be continued from that checkpoint. */
  readonly signal?: { readonly aborted: boolean };
  /** A person's Stop: aborts the model call or reads in flight (a write finishes) and ends the run with its summary; the reason is the GuardStop. */
  readonly stop?: StopSignal;
  /** What the person sends while the run works, given to it before its next model call. */
  readonly added?: AddedMessages;
}

/**
 * The messages a person adds to a run in progress, kept durable by the runner: `pending` is asked before each model
 * call after the first (never rejects: none when it can't tell); the run adds them, checkpoints, and only then calls
 * `taken` with their ids (also again, after a crash, for those a checkpoint holds). `taken` must not throw.
 */
export interface AddedMessages {
  pending(taken: readonly string[]): Promise<readonly AddedMessage[]>;
  taken(ids: readonly string[]): Promise<void>;
}

/** What the loop reads of a Stop: an AbortSignal is one, and so is the lighter flag the runner gives each run (src/runs/worker/run-stops.ts). */
export interface StopSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: "abort", listener: StopListener, options?: { once?: boolean }): void;
  removeEventListener(type: "abort", listener: StopListener): void;
}

export type StopListener = { handleEvent(): void } | (() => void);

/** How one turn of a run ended: go on (after a checkpoint), or finish with an answer, a guard's stop, or a pause for approval. */
export type StepEnd =
  | { readonly kind: "continue" }
  | { readonly kind: "answer"; readonly answer: string }
  | { readonly kind: "stop"; readonly stop: GuardStop }
  | { readonly kind: "pause"; readonly approval: PendingApproval };
