// The core's cards: what a surface renders in its own form (Block Kit, components, terminal
// text). A run's progress comes from its events: the status (what it does right now) and one
// task per tool call (pending when the model asks for it, in progress while it runs, complete
// or error with short details and output). Pure; the text in them is raw (the surface escapes it).
import { describeAdded, describeCall, shorten } from "../../contracts/trace-text.js";
import type {
  AgentEvent,
  CallOutcome,
  CallRecord,
  Decision,
  FileOutcome,
  GuardStop,
  PendingApproval,
  Person,
  StepRecord,
} from "../../contracts/types.js";
import type { Deciders } from "../../governance/authority.js";
import type { Draft } from "./answer-draft.js";

/** A file an answer carries, as the surface uploads it. */
export interface UploadFile {
  readonly name: string;
  readonly mime: string;
  readonly data: Buffer;
}

export type TaskStatus = "pending" | "in_progress" | "complete" | "error";

export interface TaskUpdate {
  readonly id: string;
  readonly title: string;
  readonly status: TaskStatus;
  readonly details?: string;
  readonly output?: string;
}

/** What the run does right now. */
export type StatusCard =
  | { readonly kind: "working" }
  | { readonly kind: "thinking"; readonly step: number }
  | { readonly kind: "running"; readonly step: number; readonly tool: string; readonly detail?: string }
  | { readonly kind: "ran"; readonly step: number; readonly tool: string; readonly outcome: CallOutcome }
  | { readonly kind: "tidying" }
  | { readonly kind: "summarising" }
  | { readonly kind: "waiting" }
  /** A call's server asked the requester (a form): the run waits for their answer. */
  | { readonly kind: "asking"; readonly step: number; readonly server: string };

/** The newest state of a run at work; `runId` from its first step on (its Stop button needs it). */
export interface Progress {
  readonly runId?: string;
  readonly status: StatusCard;
  /** Every task so far, in the order they appeared. */
  readonly tasks: readonly TaskUpdate[];
  /** What the model wrote so far, as it streams (answer-draft.ts). */
  readonly draft: Draft;
}

export interface AnswerCard {
  readonly runId: string;
  /** What the answer's message says in the end: where the draft had a live segment, what that segment becomes. */
  readonly answer: string;
  /** The guard that stopped the run, when one did: its sentence follows the answer. */
  readonly stop?: GuardStop;
  readonly steps: readonly StepRecord[];
  /** The person's message (a surface may name the trace after it). */
  readonly question: string;
  /** Files to upload with the answer (each within the platform's limit; those over it are named in `answer`). */
  readonly files?: readonly UploadFile[];
}

export interface ApprovalCard {
  readonly pending: PendingApproval;
  /** Who may decide besides the requester. */
  readonly deciders: Deciders;
}

export type SettledCard =
  | { readonly kind: "decided"; readonly decision: Decision; readonly by: Person }
  /** `approval`: the request as it was asked, for a surface that rebuilds the message (an expiry without a click). */
  | { readonly kind: "expired"; readonly approval?: ApprovalCard };

const TITLE_CHARS = 100;
const DETAILS_CHARS = 200;
const OUTPUT_CHARS = 300;
const ARGS_PREVIEW_CHARS = 60;

function titleOf(tool: string, args: string): string {
  return shorten(`${tool}(${shorten(args, ARGS_PREVIEW_CHARS)})`, TITLE_CHARS);
}

function statusOf(outcome: CallRecord["outcome"]): TaskStatus {
  if (outcome === "ok") return "complete";
  if (outcome === "needs_approval") return "pending";
  return "error";
}

function resultUpdate(call: CallRecord): TaskUpdate {
  const { detail, output, source } = describeCall(call);
  return {
    id: call.callId,
    title: titleOf(call.tool, call.args),
    status: statusOf(call.outcome),
    details: shorten(source ? `${detail} · ${source}` : detail, DETAILS_CHARS),
    ...(output ? { output: shorten(output, OUTPUT_CHARS) } : {}),
  };
}

/** The task updates one event brings (none for most events). */
export function taskUpdatesFor(event: AgentEvent): TaskUpdate[] {
  switch (event.type) {
    case "model_replied":
      return event.toolCalls.map((call) => ({ id: call.id, title: titleOf(call.name, call.arguments), status: "pending" }));
    case "tool_called":
      return [{ id: event.call.id, title: titleOf(event.call.name, event.call.arguments), status: "in_progress" }];
    case "tool_progress":
      return [
        {
          id: event.call.id,
          title: titleOf(event.call.name, event.call.arguments),
          status: "in_progress",
          details: shorten(event.detail, DETAILS_CHARS),
        },
      ];
    case "tool_result":
      return [resultUpdate(event.call)];
    case "files":
      return event.files.map(fileUpdate);
    case "message_added":
      return [
        {
          id: `added:${event.step}:${shorten(event.note.text, 40)}`,
          title: shorten(describeAdded(event.note), TITLE_CHARS),
          status: "complete",
        },
      ];
    default:
      return [];
  }
}

/** An attached file in the trace: read (and how), or why it was not used. */
function fileUpdate(outcome: FileOutcome): TaskUpdate {
  const title = shorten(`File ${outcome.file.name}`, TITLE_CHARS);
  const id = `file:${outcome.file.id}`;
  if (outcome.status === "not_used") return { id, title, status: "error", details: shorten(outcome.detail, DETAILS_CHARS) };
  const how = `read as ${outcome.as}${outcome.cut ? ", cut to fit (read_attachment reads on)" : ""}${outcome.reused ? ", from an earlier read" : ""}`;
  return { id, title, status: "complete", details: how };
}

/** The status an event brings, or undefined when it does not change it. */
export function statusFor(event: AgentEvent): StatusCard | undefined {
  switch (event.type) {
    case "step_started":
      return { kind: "thinking", step: event.step };
    case "tool_called":
      return { kind: "running", step: event.step, tool: event.call.name };
    case "tool_progress":
      return { kind: "running", step: event.step, tool: event.call.name, detail: event.detail };
    case "tool_result":
      return { kind: "ran", step: event.step, tool: event.call.tool, outcome: event.call.outcome };
    case "compacted":
    case "folded":
      return { kind: "tidying" };
    case "guard_tripped":
      return { kind: "summarising" };
    case "approval_needed":
      return { kind: "waiting" };
    case "form_asked":
      return event.form.question.kind === "form" ? { kind: "asking", step: event.step, server: event.form.question.server } : undefined;
    case "form_answered":
      return { kind: "thinking", step: event.step };
    default:
      return undefined;
  }
}

const ICONS: Record<TaskStatus, string> = { pending: "○", in_progress: "◐", complete: "✓", error: "✗" };

/** Plain-text lines for a trace message while the run works. */
export function taskLines(tasks: Iterable<TaskUpdate>): string {
  const lines: string[] = [];
  for (const task of tasks) {
    lines.push(`${ICONS[task.status]} ${task.title}${task.details ? ` — ${task.details}` : ""}`);
    if (task.output) lines.push(`    → ${task.output}`);
  }
  return lines.join("\n");
}
