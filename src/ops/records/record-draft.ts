// What a run's events tell its record beyond the outcome: the first request, each model call's
// duration and calls, guard and context notes, and the approvals asked and decided. Collected
// while the run goes (cheaply: references and small objects) and turned into the record after it.
import type { AgentEvent, CallRecord, ChatMessage, ModelSwitch, TaskOrigin, ToolCall, TokenUsage } from "../../contracts/types.js";
import type { RecordApproval, RecordNote } from "../../memory/run-records/record-schema.js";
import type { RunSetup, RunStart } from "../../runs/worker/run-observer.js";
import { contentText } from "../../agent/content.js";
import { describeForm } from "../../contracts/trace-text.js";
import { fileOutcomeLine } from "../../files/outcome-text.js";

/** A message as a record keeps it: a question that brought files as its text and one line per image (never image data). */
export type TextMessage = Exclude<ChatMessage, { role: "user" }> | { readonly role: "user"; readonly content: string };

const asText = (message: ChatMessage): TextMessage =>
  message.role === "user" ? { role: "user", content: contentText(message.content) } : message;

export interface DraftStep {
  readonly index: number;
  modelMs?: number;
  text?: string | null;
  toolCalls?: readonly ToolCall[];
  usage?: TokenUsage;
  endpoint?: string;
  readonly switches: ModelSwitch[];
  readonly calls: CallRecord[];
  readonly startedAt: number;
}

export interface RunDraft {
  readonly runId: string;
  readonly origin: TaskOrigin;
  readonly how: RunStart;
  readonly setup?: RunSetup;
  /** Epoch ms when this part of the run started. */
  readonly startedAt: number;
  firstRequest?: readonly TextMessage[];
  readonly steps: Map<number, DraftStep>;
  readonly notes: RecordNote[];
  readonly approvals: RecordApproval[];
  /** The attached files' names and outcomes, as the record keeps them. */
  readonly files: Array<{ readonly name: string; readonly outcome: string }>;
  step: number;
}

export function newDraft(runId: string, origin: TaskOrigin, how: RunStart, setup: RunSetup | undefined, now: number): RunDraft {
  return {
    runId,
    origin,
    how,
    ...(setup ? { setup } : {}),
    startedAt: now,
    steps: new Map(),
    notes: [],
    approvals: [],
    files: [],
    step: 0,
  };
}

/** Adds one event to the draft; `now` for approvals' times. Must not throw. */
export function noteEvent(draft: RunDraft, event: AgentEvent, now: number): void {
  switch (event.type) {
    case "step_started": {
      draft.step = event.step;
      draft.steps.set(event.step, { index: event.step, calls: [], switches: [], startedAt: now });
      // A new run's first request; the array is live, so it is copied (its messages are never changed, only added to).
      if (draft.how === "new" && !draft.firstRequest && event.request) draft.firstRequest = event.request.messages.map(asText);
      return;
    }
    case "model_replied": {
      const step = draft.steps.get(event.step);
      if (!step) return;
      step.text = event.text;
      step.toolCalls = event.toolCalls;
      if (event.usage) step.usage = event.usage;
      if (event.durationMs !== undefined) step.modelMs = event.durationMs;
      if (event.endpoint) step.endpoint = event.endpoint;
      return;
    }
    case "model_switched":
      draft.steps.get(event.step)?.switches.push({ from: event.from, to: event.to, cause: event.cause });
      return;
    case "tool_result":
      draft.steps.get(event.step)?.calls.push(event.call);
      return;
    case "guard_warned":
      draft.notes.push({ kind: "warned", step: draft.step, guard: event.guard, detail: event.detail });
      return;
    case "guard_tripped":
      draft.notes.push({ kind: "tripped", step: draft.step, guard: event.stop.guard, detail: event.stop.detail });
      return;
    case "folded":
      draft.notes.push({
        kind: "folded",
        step: draft.step,
        detail: `${event.messages} old results folded: ${event.tokensBefore} → ${event.tokensAfter} tokens`,
      });
      return;
    case "compacted":
      draft.notes.push({
        kind: "compacted",
        step: draft.step,
        detail: `older turns compacted: ${event.tokensBefore} → ${event.tokensAfter} tokens`,
      });
      return;
    case "form_asked":
      draft.notes.push({
        kind: "form",
        step: event.step,
        detail: `${event.form.question.kind} from ${event.form.question.server} asked of ${event.form.requester.name ?? event.form.requester.id}`,
      });
      return;
    case "form_answered":
      draft.notes.push({ kind: "form", step: event.step, detail: describeForm(event.note) });
      return;
    case "approval_needed":
      draft.approvals.push({
        callId: event.approval.callId,
        tool: event.approval.tool,
        args: safeJson(event.approval.args),
        requestedAt: now,
        expiresAt: event.approval.expiresAt,
      });
      return;
    case "files":
      // The line without its name (fileOutcomeLine's first part), so a record that keeps no content can drop the name alone.
      for (const outcome of event.files)
        draft.files.push({
          name: outcome.file.name,
          outcome: fileOutcomeLine(outcome, () => "").replace(/^[✓✗] +/, ""),
        });
      return;
    case "approval_decided": {
      const decided = { decision: event.decision, decidedBy: event.decidedBy, decidedAt: now };
      const index = draft.approvals.findIndex((approval) => approval.callId === event.callId);
      if (index >= 0) draft.approvals[index] = { ...draft.approvals[index]!, ...decided };
      // A resumed run's approval was asked in its earlier part: the decision is merged into that record.
      else draft.approvals.push({ callId: event.callId, tool: "", args: "", requestedAt: 0, expiresAt: 0, ...decided });
      return;
    }
    default:
      return;
  }
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "null";
  } catch {
    return String(value);
  }
}
