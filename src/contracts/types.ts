// The contracts every part of the product shares: messages, the model seam, tools,
// the loop's events and outcomes. Nothing here imports a platform or a client library.
import type { z } from "zod";
import type { AnswerFile, FileOutcome, OutgoingFile } from "./files.js";
import type { AskPerson, CancelReason, FormAnswer, FormQuestion } from "./forms.js";
import type { ModelRequest, ModelRetry, ModelSwitch, TokenUsage, ToolCall } from "./model.js";
import type { Person } from "./person.js";
import type { TextSource, WriteOrigin, WriteProvenance } from "./provenance.js";

export type * from "./files.js";
export type * from "./forms.js";

// ---- Messages and the model seam: in model.ts beside this file ----

export type {
  ChatMessage,
  Model,
  ModelDelta,
  ModelReply,
  ModelRequest,
  ModelRetry,
  ModelSwitch,
  TokenUsage,
  ToolCall,
  ToolSchema,
} from "./model.js";

// ---- People, surfaces, tasks ----

export type Surface = "console" | "slack" | "discord";

export type { Person };

/**
 * What governance knows about where a request was made, in neutral words: the surface's place
 * codec writes it once, at intake. Nothing but the owning surface reads `TaskOrigin.place`.
 */
export interface RequestScope {
  /** The channel whose access lists, limits and settings apply: a thread's or forum post's parent. Undefined in the console. */
  readonly channel?: string;
  /** The thread or forum post the request came from, when it has its own channel id (Discord); its own settings entry comes first. */
  readonly thread?: string;
  readonly dm: boolean;
  /** The Slack workspace or Discord server. */
  readonly workspace?: string;
  /** The requester's roles there (Discord); empty elsewhere. */
  readonly roles: readonly string[];
  /**
   * The platform names the person an admin or owner of the workspace (Slack's is_admin / is_owner, asked where the app
   * is installed in several workspaces): an admin there when the settings file names none.
   */
  readonly workspaceAdmin?: true;
  /** Where a person opens the conversation (audit, feedback), when the surface can link to it. */
  readonly link?: string;
}

/** Where a request came from. */
export interface TaskOrigin {
  readonly surface: Surface;
  /** e.g. `slack:T1:C1:1700000000.0001`, `discord:G1:C1`, `console:local`. */
  readonly conversationKey: string;
  readonly requester: Person;
  /** Absent only in records stored before scopes existed: governance then asks the surface's codec (see run-policy.ts). */
  readonly scope?: RequestScope;
  /** The surface's own ids (team, guild, channel, thread_ts…), encoded and decoded only by its place codec. No secrets. */
  readonly place: Readonly<Record<string, string>>;
  /** Set when a schedule started the run, not a message: its requester is the schedule's owner. */
  readonly schedule?: ScheduledSlot;
}

/** The slot of a schedule a run was started for (src/schedules). */
export interface ScheduledSlot {
  /** `sch_` + 8 characters. */
  readonly scheduleId: string;
  /** When the slot was due (epoch ms); with the schedule id, the slot's identity. */
  readonly slotAt: number;
  /** When it was fired: later than `slotAt` after downtime (then `late`). */
  readonly firedAt: number;
  readonly late: boolean;
  /** Older slots missed while the bot was down and not run (a late run says so). */
  readonly skipped?: number;
  /** `per_slot`: a thread of its own in the schedule's channel; `origin`: the thread the schedule was made in. */
  readonly thread: "per_slot" | "origin";
  /** The schedule's timezone, for showing times; none for a one-shot made without one. */
  readonly timeZone?: string;
}

// ---- Tools ----

export type ToolEffect = "read" | "write";

export interface ToolContext {
  readonly signal: AbortSignal;
  readonly runId: string;
  /** The call being executed (unique within the run): the key a write is recorded under. */
  readonly callId?: string;
  readonly origin: TaskOrigin;
  /** A long tool's progress ("3/5 steps"), shown in the trace as the running call's detail. Must not throw. */
  readonly progress?: (detail: string) => void;
  /** Files for the answer (attach_file, MCP images); absent where the surface can't post files. */
  readonly answerFiles?: AnswerFileSink;
  /**
   * Asks the run's requester (an MCP server's form): the call's timeout and the run's deadline stand still
   * while they answer. Absent where nobody can be asked (a replay, a bench).
   */
  readonly ask?: AskPerson;
}

/** Where a tool comes from when it is not built in, for approval messages and `/tools`. */
export interface ToolProvider {
  /** e.g. the MCP server's name in mcp.json. */
  readonly server: string;
  /** The tool's own name on that server. */
  readonly tool: string;
  /** The server's hints (readOnlyHint, destructiveHint…), shown when asking for approval. */
  readonly annotations?: Readonly<Record<string, unknown>>;
}

export interface Tool<Args = any> {
  readonly name: string;
  readonly description: string;
  readonly schema: z.ZodType<Args>;
  readonly effect: ToolEffect;
  /** Overrides the configured per-tool timeout. */
  readonly timeoutMs?: number;
  /** JSON Schema of the arguments as the provider declared it (MCP); offered to the model instead of one built from `schema`. */
  readonly parameters?: Readonly<Record<string, unknown>>;
  /**
   * A tool that acts as the person asking (an MCP server behind OAuth): the server they must
   * connect before this call can run, or undefined when they are connected. The run pauses until then.
   */
  readonly needsConnection?: (context: ToolContext) => Promise<string | undefined>;
  /** The provider's own policy layer (an MCP server's `approval` setting); combined strictly with TOOL_POLICY (tool-policy.ts). */
  readonly approval?: "asks" | "runs without asking";
  readonly provider?: ToolProvider;
  /**
   * A read of a place's messages (read_channel, read_thread): the channel it reads, as the model named
   * it, so its result's source says where the text was read. Must not throw.
   */
  readonly readsFrom?: (args: Args) => string;
  /**
   * The result's first line is the bot's own (read_attachment: which file, where to read on) and
   * stays outside the result's data block, where the model follows it; only the lines after are data.
   */
  readonly headedResult?: boolean;
  /** False: not offered to this run (e.g. create_schedule to a run a schedule started). Absent: offered everywhere. */
  readonly availableTo?: (origin: TaskOrigin) => boolean;
  /** Returns the result as text (or a JSON-serialisable value). Throwing is fine: it becomes an error observation. */
  execute(args: Args, context: ToolContext): Promise<unknown>;
}

export type CallOutcome =
  | "ok"
  | "error"
  | "invalid_args"
  | "unknown_tool"
  | "timeout"
  | "repeated"
  | "denied"
  | "needs_approval"
  /** Not run because a guard stopped the run at this call. */
  | "blocked";

export interface CallRecord {
  readonly callId: string;
  readonly tool: string;
  /** Raw argument text from the model. */
  readonly args: string;
  /** tool name + hash of canonical JSON arguments. */
  readonly signature: string;
  readonly outcome: CallOutcome;
  /** The full result or error text (kept for the trace). */
  readonly result: string;
  /** What the model saw: the result truncated to the observation cap. */
  readonly observation: string;
  /** Where the result's text came from (the tool, its server, the channel it read, Tool.readsFrom): set for a call that ran; an answer that quotes a channel read may be held (runs/holds). */
  readonly source?: TextSource;
  readonly durationMs: number;
  /** Files the call added to the answer (see ToolOutput). */
  readonly files?: readonly AnswerFile[];
  /** The questions the call's tool put to the requester while it ran, in order (see FormNote). */
  readonly forms?: readonly FormNote[];
}

/** A question a call asked, as the trace keeps it: who asked, how it ended, never the values. */
export interface FormNote {
  readonly server: string;
  readonly kind: "form" | "url";
  readonly action: FormAnswer["action"];
  readonly reason?: CancelReason;
  readonly by?: Person;
  readonly waitedMs: number;
}

/** A message the person sent while the run worked, given to the run before its next model call. */
export interface AddedNote {
  /** `added`: another message; `edited`: their question, edited. */
  readonly kind: "added" | "edited";
  readonly text: string;
}

/** An added message as the runs hand it to the loop: its intake id, so none is taken twice. */
export interface AddedMessage extends AddedNote {
  readonly id: string;
}

export interface StepRecord {
  /** 1-based. */
  readonly index: number;
  readonly startedAt: number;
  readonly durationMs: number;
  readonly text: string | null;
  readonly calls: readonly CallRecord[];
  readonly usage?: TokenUsage;
  /** The endpoint that answered the step's model call, when the model has fallbacks. */
  readonly endpoint?: string;
  /** The moves the call made to other endpoints before that one answered, oldest first. */
  readonly switches?: readonly ModelSwitch[];
  /** What the person added to the run in progress before this step's model call. */
  readonly added?: readonly AddedNote[];
}

// ---- Guards ----

export type GuardName =
  | "steps"
  | "repeat"
  | "oscillation"
  | "errors"
  | "tokens"
  | "deadline"
  | "model_unavailable"
  | "approval_expired"
  /** A paused run could not be saved, so its approval could not be asked for. */
  | "store_unavailable"
  /** A daily token limit of the settings file was reached during the run (or while it waited for a decision). */
  | "token_limit"
  /** The requester or the channel lost access (the settings file) while the run waited for a decision. */
  | "access_lost"
  /** A person (the requester or an approver) pressed Stop. */
  | "stopped"
  /** The person deleted the question while its run worked: it ends without a summary. */
  | "question_deleted";

export interface GuardStop {
  readonly guard: GuardName;
  /** Technical detail for logs and the trace. */
  readonly detail: string;
  /** One plain sentence for the person, e.g. "Stopped: the same call was repeated 3 times." */
  readonly sentence: string;
}

// ---- Approval ----

export interface PendingApproval {
  readonly runId: string;
  readonly callId: string;
  readonly tool: string;
  /** Where the tool comes from, for the person deciding: e.g. "MCP server fs, tool write_file (destructiveHint: true)". */
  readonly source?: string;
  /** Parsed, validated arguments exactly as they will run. */
  readonly args: unknown;
  readonly requester: Person;
  readonly origin: TaskOrigin;
  readonly expiresAt: number;
  /**
   * Set when the run waits for the requester to connect an MCP server (OAuth), not for a decision:
   * the server, and the private Connect link (added when the pause is shown; never stored).
   */
  readonly connect?: { readonly server: string; readonly url?: string };
  /** Where arguments that are not the requester's own came from, shown on the card with a warning; absent when all are theirs. */
  readonly provenance?: WriteProvenance;
}

export type Decision = "approve" | "deny";

// ---- Questions to the requester (forms.ts holds the question and the answer) ----

/** A question waiting for the run's requester, as it is kept and shown. */
export interface PendingForm {
  /** `frm_` + random: what the surface's buttons name. */
  readonly formId: string;
  readonly runId: string;
  readonly callId?: string;
  readonly question: FormQuestion;
  /** Only they may answer. */
  readonly requester: Person;
  readonly origin: TaskOrigin;
  /** Epoch ms: an unanswered form is cancelled then. */
  readonly expiresAt: number;
}

/** Where a call is when its tool asks, for the form's record. */
export interface AskingCall {
  readonly runId: string;
  readonly callId?: string;
  readonly origin: TaskOrigin;
}

/**
 * How a run asks its requester: `open` keeps the form where any process can answer it (rejects
 * when it can't be kept: nobody can answer it then); `wait` resolves with the answer, a cancel at
 * the form's expiry, or a cancel when `signal` (a Stop, the deadline) or `withdrawn` (the
 * asker took it back) aborts. `wait` never rejects.
 */
export interface PersonForms {
  open(question: FormQuestion, call: AskingCall): Promise<PendingForm>;
  wait(form: PendingForm, signal: AbortSignal, withdrawn?: AbortSignal): Promise<FormAnswer>;
}

// ---- Events and outcomes ----

export type AgentEvent =
  | {
      readonly type: "step_started";
      readonly runId: string;
      readonly step: number;
      /** What the model is sent for this step: the run's live arrays, to be read at once and never kept or changed. */
      readonly request?: ModelRequest;
      /** The channels earlier calls of the run read (before a pause or a restart too), when any: what the model writes now may quote them. */
      readonly channelsRead?: readonly string[];
    }
  /** Before the first step of a run whose message brought files: what became of each. */
  | { readonly type: "files"; readonly runId: string; readonly files: readonly FileOutcome[] }
  /**
   * Text the model is writing in this step, as it streams (the answer, or what it says before a tool
   * call): surfaces show it as it comes. `text` is the new piece, not the whole so far.
   */
  | { readonly type: "text_delta"; readonly runId: string; readonly step: number; readonly text: string }
  /** What this step streamed is void: its try failed and another starts (a retry, another endpoint). */
  | { readonly type: "text_restart"; readonly runId: string; readonly step: number }
  | {
      readonly type: "model_replied";
      readonly runId: string;
      readonly step: number;
      readonly text: string | null;
      readonly toolCalls: readonly ToolCall[];
      readonly usage?: TokenUsage;
      /** How long the model call took. */
      readonly durationMs?: number;
      /** The endpoint that answered, when the model has fallbacks. */
      readonly endpoint?: string;
    }
  /** The step's model call failed and is tried again (ModelRetry): "model not answering, retry 2 of 3". */
  | ({ readonly type: "model_retrying"; readonly runId: string; readonly step: number } & ModelRetry)
  /** The step's model call moved to another endpoint (ModelSwitch): "gpt-4o answered instead of gpt-4.1: 429 from …". */
  | ({ readonly type: "model_switched"; readonly runId: string; readonly step: number } & ModelSwitch)
  /** The person's message, added to the run in progress before its next model call (`step`). */
  | { readonly type: "message_added"; readonly runId: string; readonly step: number; readonly note: AddedNote }
  | { readonly type: "tool_called"; readonly runId: string; readonly step: number; readonly call: ToolCall }
  /** A running tool reported how far it got (an MCP server's progress notification). */
  | { readonly type: "tool_progress"; readonly runId: string; readonly step: number; readonly call: ToolCall; readonly detail: string }
  | { readonly type: "tool_result"; readonly runId: string; readonly step: number; readonly call: CallRecord }
  | { readonly type: "guard_warned"; readonly runId: string; readonly guard: GuardName; readonly detail: string }
  | { readonly type: "guard_tripped"; readonly runId: string; readonly stop: GuardStop }
  | {
      readonly type: "folded";
      readonly runId: string;
      readonly messages: number;
      readonly tokensBefore: number;
      readonly tokensAfter: number;
    }
  | { readonly type: "compacted"; readonly runId: string; readonly tokensBefore: number; readonly tokensAfter: number }
  | { readonly type: "approval_needed"; readonly runId: string; readonly approval: PendingApproval }
  /** A write copied arguments from content someone else wrote: asked with a warning on its card, or refused without asking (UNTRUSTED_WRITES). */
  | {
      readonly type: "untrusted_write";
      readonly runId: string;
      readonly step: number;
      readonly callId: string;
      readonly tool: string;
      readonly verdict: "warned" | "refused";
      readonly origins: readonly WriteOrigin[];
    }
  /** A running call's tool asks the requester (a form or a link); the call waits, its clocks stand still. */
  | { readonly type: "form_asked"; readonly runId: string; readonly step: number; readonly form: PendingForm }
  /** How that question ended; the values never travel in events. */
  | { readonly type: "form_answered"; readonly runId: string; readonly step: number; readonly form: PendingForm; readonly note: FormNote }
  | {
      readonly type: "approval_decided";
      readonly runId: string;
      readonly callId: string;
      readonly decision: Decision;
      readonly decidedBy: Person;
    }
  | { readonly type: "final"; readonly runId: string; readonly outcome: RunOutcome };

/** Must not throw; a sink that throws is logged and ignored by the loop. */
export type EventSink = (event: AgentEvent) => void;

export interface RunTotals {
  readonly steps: readonly StepRecord[];
  readonly usage: TokenUsage;
}

export type RunOutcome =
  | (RunTotals & {
      readonly status: "answered";
      readonly runId: string;
      readonly answer: string;
      readonly stop?: GuardStop;
      /** Files the answer carries (posted with it by the surface); absent when none. */
      readonly files?: readonly AnswerFile[];
      /**
       * Set when the answer was held (runs/holds): it quoted these channels, which not everyone where it
       * was asked can see; `answer` is then the note posted in its place. Absent: posted as written.
       */
      readonly held?: { readonly places: readonly string[]; readonly action: "ask" | "private" };
    })
  | (RunTotals & { readonly status: "paused"; readonly runId: string; readonly pending: PendingApproval });

/** Where tools put files for the answer; present only where the surface posts them. */
export interface AnswerFileSink {
  /** Larger files are refused by `attach`: a tool checks the size first. */
  readonly maxBytes: number;
  /** Stores the files under ids made from the run, the call and their order, so a replayed call stores them once. */
  attach(context: ToolContext, files: readonly OutgoingFile[]): Promise<readonly AnswerFile[]>;
}
