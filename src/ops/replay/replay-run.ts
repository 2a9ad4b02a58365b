// Replays one stored run through the real loop (runAgent, and resumeAgent with the recorded
// decision at each approval) under settings laid over the recorded ones, and says what would
// end differently: the status, the guard, the steps, the tokens, the cost.
import { createLoopDeps } from "../../agent/loop/loop-deps.js";
import { resumeAgent, runAgent } from "../../agent/loop/loop.js";
import type { LoopResult, Resolution } from "../../agent/loop/loop-types.js";
import { createToolPolicy, effectUnder, type PolicedTool, sayOfWord } from "../../agent/tools/tool-policy.js";
import type { RunOutcome } from "../../contracts/types.js";
import { costOf, type PriceTable } from "../../cost/prices.js";
import type { RecordUsage, RunRecord } from "../../memory/run-records/record-schema.js";
import { recordUsage } from "../records/record-build.js";
import { divergeOnce, followEvents, newReplayState, ReplayRegistry, replayModel, replayTools } from "./replay-parts.js";
import { settingsUnder, type ReplayOverrides } from "./replay-settings.js";

export interface EndView {
  readonly status: "answered" | "paused";
  readonly guard?: string;
  readonly steps: number;
  readonly tokens: RecordUsage;
  /** Dollars; undefined when the model has no price. */
  readonly cost?: number;
  readonly answer?: string;
}

export type ReplayResult =
  | { readonly kind: "not_replayable"; readonly runId: string; readonly reason: string }
  | {
      readonly kind: "replayed";
      readonly runId: string;
      readonly recorded: EndView;
      readonly replayed: EndView;
      /** What ends differently: status, guard, steps, tokens, cost, answer. */
      readonly changed: readonly string[];
      /** Why the replay left the record (its result after that is not the real course). */
      readonly diverged?: string;
    };

/** Guards that come from outside the loop: a replay can't bring them about. */
const OUTSIDE_GUARDS = new Set(["deadline", "stopped", "question_deleted", "token_limit", "access_lost", "store_unavailable"]);
/** A paused run resumed this many times at most in one replay (each needs its recorded decision). */
const MAX_RESUMES = 20;

/** Why the record can't be replayed, or undefined when it can. */
export function unreplayable(record: RunRecord): string | undefined {
  if (record.content === "metadata") return "its record keeps no text (RUN_RECORD_CONTENT=metadata)";
  if (record.cut) return "its record was cut to fit RUN_RECORD_MAX_BYTES";
  if (record.partial) return "it started in a process that stopped before recording it";
  if (!record.firstRequest || record.firstRequest.length === 0) return "its first request was not recorded";
  if (record.status === "failed") return "it failed without an outcome";
  if (record.stop && OUTSIDE_GUARDS.has(record.stop.guard))
    return `it ended by the ${record.stop.guard} guard, which comes from outside the loop`;
  if (record.notes.some((note) => note.kind === "compacted")) return "it compacted its context, and a compaction's text is not recorded";
  if (record.settings.tools.length === 0 && record.steps.some((step) => step.calls.length > 0)) return "its tools were not recorded";
  return undefined;
}

function viewOf(
  status: EndView["status"],
  guard: string | undefined,
  steps: number,
  tokens: RecordUsage,
  model: string,
  prices: PriceTable,
  answer?: string,
): EndView {
  const cost = costOf(prices, model, tokens);
  return {
    status,
    ...(guard ? { guard } : {}),
    steps,
    tokens,
    ...(cost === undefined ? {} : { cost }),
    ...(answer === undefined ? {} : { answer }),
  };
}

function differences(recorded: EndView, replayed: EndView): string[] {
  const changed: string[] = [];
  if (recorded.status !== replayed.status) changed.push("status");
  if (recorded.guard !== replayed.guard) changed.push("guard");
  if (recorded.steps !== replayed.steps) changed.push("steps");
  const { tokens: a } = recorded;
  const { tokens: b } = replayed;
  if (a.prompt !== b.prompt || a.completion !== b.completion || a.cached !== b.cached) changed.push("tokens");
  if (recorded.cost !== replayed.cost) changed.push("cost");
  if (recorded.answer !== replayed.answer) changed.push("answer");
  return changed;
}

/** The recorded decision on the waiting call, or undefined when the record has none (the replay then ends paused). */
function recordedResolution(record: RunRecord, callId: string): Resolution | undefined {
  const approval = record.approvals.find((item) => item.callId === callId);
  if (approval?.decision === "expired") return { kind: "expired" };
  if ((approval?.decision === "approve" || approval?.decision === "deny") && approval.decidedBy)
    return { kind: "decided", decision: approval.decision, decidedBy: approval.decidedBy };
  return undefined;
}

export async function replayRecord(record: RunRecord, overrides: ReplayOverrides, prices: PriceTable): Promise<ReplayResult> {
  const reason = unreplayable(record);
  if (reason) return { kind: "not_replayable", runId: record.runId, reason };
  const settings = settingsUnder(record.settings, overrides);
  const state = newReplayState();
  const sink = followEvents(state);
  const recordedPolicy = new Map(record.settings.tools.map((tool) => [tool.name, tool.policy]));
  const recorded = (tool: PolicedTool) => {
    const word = recordedPolicy.get(tool.name);
    return word ? effectUnder(tool, sayOfWord(word)) : "asks";
  };
  const policy = overrides.toolPolicy ? createToolPolicy(overrides.toolPolicy) : recorded;
  const deps = {
    ...createLoopDeps({
      model: replayModel(record, state, settings.model),
      modelName: settings.model,
      tools: replayTools(record),
      guards: {
        maxSteps: settings.maxSteps,
        maxConsecutiveErrors: settings.maxConsecutiveErrors,
        oscillationWindow: settings.oscillationWindow,
        contextTokens: settings.contextWindow,
        reservedOutputTokens: settings.reservedOutputTokens,
        observationTokens: settings.observationTokens,
        runTimeoutMs: settings.runTimeoutMs,
        toolTimeoutMs: 30_000,
      },
      approvalTimeoutMs: settings.approvalTimeoutMs,
      registry: (tools, options) => new ReplayRegistry(tools, options, record, state),
    }),
    policy,
  };
  const origin = { surface: record.surface, conversationKey: record.conversationKey, requester: record.requester, place: {} };
  let result: LoopResult = await runAgent(
    { runId: record.runId, origin, question: record.question, context: record.firstRequest!.slice(0, -1) },
    deps,
    sink,
  );
  for (let resumes = 0; result.outcome.status === "paused" && resumes < MAX_RESUMES; resumes++) {
    const resolution = recordedResolution(record, result.outcome.pending.callId);
    if (!resolution) break;
    result = await resumeAgent(result.state, resolution, deps, sink);
  }
  const outcome: RunOutcome = result.outcome;
  const recordedEnd = viewOf(
    record.status === "paused" ? "paused" : "answered",
    record.stop?.guard,
    record.steps.length,
    record.usage,
    record.settings.model,
    prices,
    record.answer,
  );
  const replayed = viewOf(
    outcome.status,
    outcome.status === "answered" ? outcome.stop?.guard : undefined,
    outcome.steps.length,
    recordUsage(outcome.usage),
    settings.model,
    prices,
    outcome.status === "answered" ? outcome.answer : undefined,
  );
  if (outcome.status === "paused" && record.status !== "paused")
    divergeOnce(state, `${outcome.pending.tool} would wait for a decision the record does not hold`);
  return {
    kind: "replayed",
    runId: record.runId,
    recorded: recordedEnd,
    replayed,
    changed: differences(recordedEnd, replayed),
    ...(state.diverged ? { diverged: state.diverged } : {}),
  };
}
