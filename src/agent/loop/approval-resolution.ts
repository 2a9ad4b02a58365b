// What a person's decision means for the write call that waited for it: a denial, a call that
// no longer validates, or a tool the policy now denies each settle without running; only an
// approved call that is still valid and allowed runs. Also the request a person is asked, and the
// waiting call as the trace shows it.
import { callRecord, policyDeniedRecord, rejectedRecord } from "./call-batch.js";
import type { Resolution } from "./loop-types.js";
import type { PendingStep } from "./run-state.js";
import type { ToolPolicy } from "../tools/tool-policy.js";
import type { PreparedCall, ToolRegistry } from "../tools/tool-registry.js";
import { sourceOf } from "../tools/tool-source.js";
import type { CallRecord, PendingApproval, StepRecord, TaskOrigin, ToolCall } from "../../contracts/types.js";

type Decided = Extract<Resolution, { kind: "decided" }>;

/** The record of a call that does not run after the decision, or undefined when it runs. */
export function unrunRecord(
  resolution: Decided,
  call: ToolCall,
  prepared: PreparedCall,
  tools: ToolRegistry,
  policy: ToolPolicy,
): CallRecord | undefined {
  if (resolution.decision === "deny") {
    const who = resolution.decidedBy.name ?? resolution.decidedBy.id;
    // The person reads who denied it; the model also reads what to do next.
    const result = `Denied by ${who}; it did not run.`;
    const observation = `Denied by ${who}: the person did not approve running ${call.name}, so it did not run. Do not ask again; continue without it or answer.`;
    return callRecord(call, prepared.signature, "denied", result, observation);
  }
  if (prepared.kind === "rejected") return rejectedRecord(prepared, tools);
  // The policy may have changed while the request waited (a restart with a new TOOL_POLICY).
  if (policy(prepared.tool) === "denied") return policyDeniedRecord(call, prepared.signature);
  return undefined;
}

/** The steps as the person should see them: the step that waits for approval shows its waiting call. */
export function withWaitingStep(steps: StepRecord[], pending: PendingStep | undefined, now: number): StepRecord[] {
  if (!pending) return steps;
  const { index, startedAt, text, calls, done, usage, endpoint, switches } = pending;
  const waiting = calls[0]!;
  const placeholder: CallRecord = {
    callId: waiting.id,
    tool: waiting.name,
    args: waiting.arguments,
    signature: "",
    outcome: "needs_approval",
    result: pending.connect ? `waiting for the person to connect ${pending.connect}` : "waiting for approval",
    observation: "",
    durationMs: 0,
  };
  const answeredBy = { ...(endpoint ? { endpoint } : {}), ...(switches ? { switches } : {}) };
  return [...steps, { index, startedAt, durationMs: now - startedAt, text, calls: [...done, placeholder], usage, ...answeredBy }];
}

/** What a person is asked to decide: the write call the run waits on, with its arguments (checked) and its source. */
export function approvalRequest(
  runId: string,
  origin: TaskOrigin,
  call: ToolCall,
  tools: ToolRegistry,
  args: unknown,
  expiresAt: number,
  connect?: string,
): PendingApproval {
  return {
    runId,
    callId: call.id,
    tool: call.name,
    ...sourceOf(tools.get(call.name)),
    args,
    requester: origin.requester,
    origin,
    expiresAt,
    ...(connect ? { connect: { server: connect } } : {}),
  };
}
