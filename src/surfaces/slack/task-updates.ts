// The loop's events as Slack task updates: one task per tool call, pending when the model
// asks for it, in progress while it runs, complete or error with short details and output.
// Also the one-line status shown while the run works. Pure; model-written text is neutralised.
import type { AgentEvent, CallRecord } from "../../agent/types.js";
import { describeCall, shorten } from "../../agent/trace.js";
import { neutraliseMentions } from "./neutralise-mentions.js";

export type TaskStatus = "pending" | "in_progress" | "complete" | "error";

export interface TaskUpdate {
  readonly id: string;
  readonly title: string;
  readonly status: TaskStatus;
  readonly details?: string;
  readonly output?: string;
}

const TITLE_CHARS = 100;
const DETAILS_CHARS = 200;
const OUTPUT_CHARS = 300;
const ARGS_PREVIEW_CHARS = 60;

const clean = (text: string, max: number) => neutraliseMentions(shorten(text, max));

function titleOf(tool: string, args: string): string {
  return clean(`${tool}(${shorten(args, ARGS_PREVIEW_CHARS)})`, TITLE_CHARS);
}

function statusOf(outcome: CallRecord["outcome"]): TaskStatus {
  if (outcome === "ok") return "complete";
  if (outcome === "needs_approval") return "pending";
  return "error";
}

function resultUpdate(call: CallRecord): TaskUpdate {
  const { detail, output } = describeCall(call);
  return {
    id: call.callId,
    title: titleOf(call.tool, call.args),
    status: statusOf(call.outcome),
    details: clean(detail, DETAILS_CHARS),
    ...(output ? { output: clean(output, OUTPUT_CHARS) } : {}),
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
          details: clean(event.detail, DETAILS_CHARS),
        },
      ];
    case "tool_result":
      return [resultUpdate(event.call)];
    default:
      return [];
  }
}

/** The status line for an event, or undefined when it does not change it. */
export function statusFor(event: AgentEvent): string | undefined {
  switch (event.type) {
    case "step_started":
      return event.step === 1 ? "is thinking…" : `is thinking (step ${event.step})…`;
    case "tool_called":
      return `is running ${clean(event.call.name, 40)}…`;
    case "compacted":
    case "folded":
      return "is tidying up its notes…";
    case "guard_tripped":
      return "is writing a summary…";
    case "approval_needed":
      return "is waiting for approval…";
    default:
      return undefined;
  }
}

const ICONS: Record<TaskStatus, string> = { pending: "○", in_progress: "◐", complete: "✓", error: "✗" };

/** Plain-text lines for the fallback trace message while the run works. */
export function taskLines(tasks: Iterable<TaskUpdate>): string {
  const lines: string[] = [];
  for (const task of tasks) {
    lines.push(`${ICONS[task.status]} ${task.title}${task.details ? ` — ${task.details}` : ""}`);
    if (task.output) lines.push(`    → ${task.output}`);
  }
  return lines.join("\n");
}
