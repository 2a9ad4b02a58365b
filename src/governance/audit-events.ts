// Turns the loop's events, and decisions governance refused, into audit entries: pure, so the
// loop needs no I/O for auditing. The observer appends them in the background; a store failure is
// logged, never thrown.
import type { Logger } from "../logger.js";
import type { AgentEvent, CallOutcome, Decision, EventSink, PendingApproval, Person, TaskOrigin } from "../contracts/types.js";
import type { AuditDraft, AuditLog } from "./audit-log.js";
import { createAuditQueue } from "./audit-queue.js";
import { originsReason } from "../agent/context/untrusted-writes.js";

const PREVIEW_CHARS = 300;
/** Outcomes of a write call that did not run: asked about, denied, blocked, skipped as a repeat. */
const NOT_RUN: ReadonlySet<CallOutcome> = new Set(["needs_approval", "denied", "blocked", "repeated", "invalid_args", "unknown_tool"]);

export interface AuditContext {
  readonly origin: TaskOrigin;
  readonly isWrite: (tool: string) => boolean;
  /** The call a resumed run was waiting on, so its decision names the tool. */
  readonly waitingTool?: string;
}

function preview(value: string): string {
  return value.length > PREVIEW_CHARS ? `${value.slice(0, PREVIEW_CHARS - 1)}…` : value;
}

/** What every entry about a run says: the run, its conversation and its requester. */
function runFields(runId: string, origin: TaskOrigin) {
  return {
    runId,
    conversationKey: origin.conversationKey,
    surface: origin.surface,
    place: { ...origin.place },
    ...(origin.scope?.link ? { link: origin.scope.link } : {}),
    requester: origin.requester,
  };
}

export function auditDraftOf(event: AgentEvent, context: AuditContext): AuditDraft | undefined {
  const base = runFields(event.runId, context.origin);
  switch (event.type) {
    case "approval_needed":
      return {
        ...base,
        kind: "approval_requested",
        tool: event.approval.tool,
        callId: event.approval.callId,
        args: preview(JSON.stringify(event.approval.args) ?? "null"),
      };
    case "approval_decided":
      return {
        ...base,
        kind: "approval_decided",
        callId: event.callId,
        decision: event.decision,
        decidedBy: event.decidedBy,
        ...(context.waitingTool ? { tool: context.waitingTool } : {}),
      };
    case "tool_result":
      if (!context.isWrite(event.call.tool) || NOT_RUN.has(event.call.outcome)) return undefined;
      return {
        ...base,
        kind: "write_executed",
        tool: event.call.tool,
        callId: event.call.callId,
        args: preview(event.call.args),
        outcome: event.call.outcome,
        result: preview(event.call.result),
      };
    case "untrusted_write":
      // Where the copied arguments came from: names of people, places, files and tools, never the values.
      return {
        ...base,
        kind: event.verdict === "refused" ? "untrusted_write_refused" : "untrusted_write_warned",
        tool: event.tool,
        callId: event.callId,
        reason: originsReason(event.origins),
      };
    case "form_answered": {
      // How the form ended and who answered it: never the values, which may be secrets.
      const { note, form } = event;
      return {
        ...base,
        kind: "form_answered",
        ...(form.callId ? { callId: form.callId } : {}),
        ...(note.by ? { decidedBy: note.by } : {}),
        form: { server: note.server, kind: note.kind, action: note.action, ...(note.reason ? { reason: note.reason } : {}) },
      };
    }
    case "guard_tripped":
      if (event.stop.guard !== "approval_expired") return undefined;
      return { ...base, kind: "approval_expired", ...(context.waitingTool ? { tool: context.waitingTool } : {}) };
    default:
      return undefined;
  }
}

/** A person edited or deleted their question (`runId`: its intake id), and what became of it. */
export function questionChangedDraft(
  kind: "question_edited" | "question_deleted",
  runId: string,
  origin: TaskOrigin,
  reason: string,
): AuditDraft {
  return { ...runFields(runId, origin), kind, reason };
}

/** A decision on `pending` that governance refused (see acts.ts), and why. */
export function refusedDecisionDraft(pending: PendingApproval, decision: Decision, decidedBy: Person, reason: string): AuditDraft {
  return {
    ...runFields(pending.runId, pending.origin),
    kind: "decision_refused",
    tool: pending.tool,
    callId: pending.callId,
    decision,
    decidedBy,
    reason,
  };
}

export interface AuditObserver {
  /** A sink to tap a run's events with. Never throws. */
  sinkFor(context: AuditContext): EventSink;
  /** Appends an entry that comes from no run event, in the background. Never throws. */
  record(draft: AuditDraft): void;
  /** Resolves when every append started so far has finished (tests, shutdown). */
  settled(): Promise<void>;
}

export function createAuditObserver(log: AuditLog, logger: Logger): AuditObserver {
  const queue = createAuditQueue(log, logger);
  return {
    sinkFor(context) {
      return (event) => {
        const draft = auditDraftOf(event, context);
        if (draft) queue.append(draft);
      };
    },
    record: (draft) => queue.append(draft),
    settled: queue.settled,
  };
}
