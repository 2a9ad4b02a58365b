// A run's record from its draft, its end (outcome or failure) and the record of its earlier part
// (a paused run's), as plain data: pure, run after the answer went out. Texts are kept as the
// run had them here; record-fit.ts masks and cuts them.
import type { LoopDeps } from "../../agent/loop/loop-types.js";
import { wordOf } from "../../agent/tools/tool-policy.js";
import type { CallRecord, RunOutcome, StepRecord, TaskOrigin, TokenUsage } from "../../contracts/types.js";
import {
  addRecordUsage,
  NO_USAGE,
  type RecordApproval,
  type RecordOutcome,
  type RecordSettings,
  type RecordStep,
  type RecordUsage,
  type RunRecord,
} from "../../memory/run-records/record-schema.js";
import type { RunDraft } from "./record-draft.js";

export type RunEnd = { readonly kind: "outcome"; readonly outcome: RunOutcome } | { readonly kind: "failed"; readonly reason: string };

export const recordUsage = (usage: TokenUsage | undefined): RecordUsage =>
  usage ? { prompt: usage.promptTokens, completion: usage.completionTokens, cached: usage.cachedTokens ?? 0 } : NO_USAGE;

/** The settings in force: the loop's limits, its model, and each tool offered with its effect and policy. */
export function settingsOf(deps: LoopDeps, persona: string | undefined): RecordSettings {
  return {
    model: deps.model.name,
    maxSteps: deps.limits.maxSteps,
    maxConsecutiveErrors: deps.limits.maxConsecutiveErrors,
    oscillationWindow: deps.limits.oscillationWindow,
    contextWindow: deps.limits.contextWindow,
    reservedOutputTokens: deps.limits.reservedOutputTokens,
    observationTokens: deps.tools.observationTokens,
    runTimeoutMs: deps.limits.runTimeoutMs,
    approvalTimeoutMs: deps.approvalTimeoutMs,
    ...(persona ? { persona } : {}),
    tools: deps.tools.schemas.flatMap((schema) => {
      const tool = deps.tools.get(schema.name);
      if (!tool) return [];
      return [
        {
          name: schema.name,
          description: schema.description,
          parameters: schema.parameters,
          effect: tool.effect,
          // Records keep TOOL_POLICY's words, as they always have.
          policy: wordOf(deps.policy(tool)),
          ...(tool.approval ? { approval: tool.approval === "asks" ? ("approve" as const) : ("allow" as const) } : {}),
          ...(tool.provider ? { server: tool.provider.server } : {}),
        },
      ];
    }),
  };
}

const UNKNOWN_SETTINGS: RecordSettings = {
  model: "unknown",
  maxSteps: 0,
  maxConsecutiveErrors: 0,
  oscillationWindow: 0,
  contextWindow: 0,
  reservedOutputTokens: 0,
  observationTokens: 0,
  runTimeoutMs: 0,
  approvalTimeoutMs: 0,
  tools: [],
};

/**
 * Channel, workspace and a link to the conversation, from the origin's neutral scope (its
 * surface's codec wrote it at intake; a run of an older record got it when it was loaded): the
 * channel is the one that governs, a thread's parent.
 */
export function placeOf(origin: TaskOrigin): Pick<RunRecord, "channel" | "workspace" | "link"> {
  const { scope } = origin;
  return {
    channel: scope?.channel ?? origin.surface,
    ...(scope?.workspace ? { workspace: scope.workspace } : {}),
    ...(scope?.link ? { link: scope.link } : {}),
  };
}

function outcomeClass(end: RunEnd): RecordOutcome {
  if (end.kind === "failed") return "failed";
  const { outcome } = end;
  if (outcome.status === "paused") return "paused";
  if (!outcome.stop) return "answered";
  if (outcome.stop.guard === "stopped") return "stopped";
  // A model server that could not be reached is a failure to answer, not a guard stopping the model.
  return outcome.stop.guard === "model_unavailable" ? "failed" : "guard";
}

const callOf = (call: CallRecord): RecordStep["calls"][number] => ({
  callId: call.callId,
  tool: call.tool,
  args: call.args,
  signature: call.signature,
  outcome: call.outcome,
  result: call.result,
  resultLength: call.result.length,
  ...(call.source ? { source: call.source } : {}),
  durationMs: call.durationMs,
});

function stepOf(step: StepRecord, draft: RunDraft, previous: RunRecord | undefined): RecordStep {
  const seen = draft.steps.get(step.index);
  const earlier = previous?.steps.find((item) => item.index === step.index);
  const modelMs = seen?.modelMs ?? earlier?.modelMs;
  return {
    index: step.index,
    startedAt: step.startedAt,
    durationMs: step.durationMs,
    ...(modelMs === undefined ? {} : { modelMs }),
    ...(step.usage ? { usage: recordUsage(step.usage) } : {}),
    ...(step.endpoint ? { endpoint: step.endpoint } : {}),
    ...(step.switches ? { switches: [...step.switches] } : {}),
    text: step.text,
    toolCalls: [
      ...(seen?.toolCalls ?? earlier?.toolCalls ?? step.calls.map((call) => ({ id: call.callId, name: call.tool, arguments: call.args }))),
    ],
    calls: step.calls.map(callOf),
  };
}

/** Steps of a run that failed without an outcome: what its events showed. */
function draftSteps(draft: RunDraft, previous: RunRecord | undefined, now: number): RecordStep[] {
  const steps = [...(previous?.steps ?? [])];
  for (const seen of draft.steps.values()) {
    if (steps.some((step) => step.index === seen.index)) continue;
    steps.push({
      index: seen.index,
      startedAt: seen.startedAt,
      durationMs: Math.max(0, now - seen.startedAt),
      ...(seen.modelMs === undefined ? {} : { modelMs: seen.modelMs }),
      ...(seen.usage ? { usage: recordUsage(seen.usage) } : {}),
      ...(seen.endpoint ? { endpoint: seen.endpoint } : {}),
      ...(seen.switches.length > 0 ? { switches: [...seen.switches] } : {}),
      text: seen.text ?? null,
      toolCalls: [...(seen.toolCalls ?? [])],
      calls: seen.calls.map(callOf),
    });
  }
  return steps;
}

function approvalsOf(draft: RunDraft, previous: RunRecord | undefined, end: RunEnd, now: number): RecordApproval[] {
  const merged = [...(previous?.approvals ?? [])];
  for (const approval of draft.approvals) {
    const index = merged.findIndex((item) => item.callId === approval.callId);
    if (index < 0) merged.push(approval);
    else merged[index] = { ...merged[index]!, ...(approval.requestedAt === 0 ? pick(approval) : approval) };
  }
  if (end.kind === "outcome" && end.outcome.status === "answered" && end.outcome.stop?.guard === "approval_expired")
    return merged.map((approval) => (approval.decision ? approval : { ...approval, decision: "expired", decidedAt: now }));
  return merged;
}

const pick = (approval: RecordApproval) => ({
  ...(approval.decision ? { decision: approval.decision } : {}),
  ...(approval.decidedBy ? { decidedBy: approval.decidedBy } : {}),
  ...(approval.decidedAt === undefined ? {} : { decidedAt: approval.decidedAt }),
});

/** A resumed run's files came with its first part. */
function filesOf(draft: RunDraft, previous: RunRecord | undefined): Pick<RunRecord, "files"> {
  const files = [...(previous?.files ?? []), ...draft.files];
  return files.length === 0 ? {} : { files };
}

export interface BuildOptions {
  readonly now: number;
  readonly persona?: string;
}

export function buildRecord(draft: RunDraft, end: RunEnd, previous: RunRecord | undefined, options: BuildOptions): RunRecord {
  const { origin } = draft;
  const { now } = options;
  const outcome = end.kind === "outcome" ? end.outcome : undefined;
  const question = draft.setup?.question ?? previous?.question ?? "";
  const firstRequest = previous?.firstRequest ?? draft.firstRequest;
  const steps = outcome ? outcome.steps.map((step) => stepOf(step, draft, previous)) : draftSteps(draft, previous, now);
  // A failed run has no totals: what its steps' model calls reported.
  const usage = outcome ? recordUsage(outcome.usage) : steps.reduce((sum, step) => addRecordUsage(sum, step.usage), NO_USAGE);
  return {
    version: 1,
    runId: draft.runId,
    surface: origin.surface,
    conversationKey: origin.conversationKey,
    ...placeOf(origin),
    requester: origin.requester,
    content: "full",
    question,
    questionLength: question.length,
    startedAt: previous?.startedAt ?? draft.startedAt,
    endedAt: now,
    settings: draft.setup ? settingsOf(draft.setup.deps, options.persona) : (previous?.settings ?? UNKNOWN_SETTINGS),
    ...(firstRequest ? { firstRequest: [...firstRequest] } : {}),
    steps,
    notes: [...(previous?.notes ?? []), ...draft.notes],
    approvals: approvalsOf(draft, previous, end, now),
    ...filesOf(draft, previous),
    status: outcome ? outcome.status : "failed",
    outcome: outcomeClass(end),
    ...(outcome?.status === "answered" && outcome.stop ? { stop: outcome.stop } : {}),
    ...(outcome?.status === "answered" ? { answer: outcome.answer } : {}),
    ...(end.kind === "failed" ? { failure: end.reason } : {}),
    usage,
    counted: usage,
    ...(previous?.prefix ? { prefix: previous.prefix } : {}),
    partial: previous ? previous.partial : draft.how !== "new",
    cut: previous?.cut ?? false,
    votes: previous?.votes ?? {},
  };
}
