// The model and the tools a replay drives the real loop with: the model answers each step with
// the reply the record holds for it, the tools return the recorded results. Nothing is called,
// nothing runs, nothing is written. Anything the record does not hold marks the replay diverged.
import { z } from "zod";
import { callSignature } from "../../agent/tools/signature.js";
import { ToolRegistry, type Execution, type PreparedCall, type RegistryOptions } from "../../agent/tools/tool-registry.js";
import type { AgentEvent, Model, ModelReply, Tool, ToolCall, ToolContext, TokenUsage } from "../../contracts/types.js";
import { ModelUnavailableError } from "../../errors.js";
import type { RecordCall, RecordUsage, RunRecord } from "../../memory/run-records/record-schema.js";

/** What the replay learnt about the run while it went. */
export interface ReplayState {
  /** Why the replay left the record, when it did (the first reason). */
  diverged?: string;
  /** What the next model call is for, from the events seen so far. */
  phase:
    | { readonly kind: "step"; readonly step: number }
    | { readonly kind: "between" }
    | { readonly kind: "summary"; readonly guard: string };
  /** Steps the loop took (model calls for steps). */
  steps: number;
}

export const tokenUsageOf = (usage: RecordUsage | undefined): TokenUsage | undefined =>
  usage
    ? { promptTokens: usage.prompt, completionTokens: usage.completion, ...(usage.cached > 0 ? { cachedTokens: usage.cached } : {}) }
    : undefined;

export function newReplayState(): ReplayState {
  return { phase: { kind: "between" }, steps: 0 };
}

export function divergeOnce(state: ReplayState, reason: string): void {
  state.diverged ??= reason;
}

/** The replay's event sink: it only follows which call comes next. */
export function followEvents(state: ReplayState): (event: AgentEvent) => void {
  return (event) => {
    if (event.type === "step_started") {
      state.phase = { kind: "step", step: event.step };
      state.steps = Math.max(state.steps, event.step);
    } else if (event.type === "model_replied") state.phase = { kind: "between" };
    else if (event.type === "guard_tripped") state.phase = { kind: "summary", guard: event.stop.guard };
  };
}

/** What the recorded run's summary call cost: its total less its steps (compaction is never replayed). */
function summaryUsage(record: RunRecord): TokenUsage | undefined {
  const steps = record.steps.reduce(
    (sum, step) => ({
      prompt: sum.prompt + (step.usage?.prompt ?? 0),
      completion: sum.completion + (step.usage?.completion ?? 0),
      cached: sum.cached + (step.usage?.cached ?? 0),
    }),
    { prompt: 0, completion: 0, cached: 0 },
  );
  const rest = {
    prompt: Math.max(0, record.usage.prompt - steps.prompt),
    completion: Math.max(0, record.usage.completion - steps.completion),
    cached: Math.max(0, record.usage.cached - steps.cached),
  };
  return rest.prompt + rest.completion > 0 ? tokenUsageOf(rest) : undefined;
}

/** A replayed reply costs what the record says it did, and nothing where no model is asked: the loop must not count one itself. */
const NONE = { promptTokens: 0, completionTokens: 0 } as const;

export function replayModel(record: RunRecord, state: ReplayState, name: string): Model {
  return {
    name,
    async complete(): Promise<ModelReply> {
      const { phase } = state;
      if (phase.kind === "summary") {
        // The same guard at the same step gives the recorded summary; any other trip ends without one (no model is asked).
        const same = record.stop?.guard === phase.guard && record.steps.length === state.steps;
        if (!same) return { content: `(replay: ended by the ${phase.guard} guard; no summary was asked for)`, toolCalls: [], usage: NONE };
        return { content: record.answer ?? "", toolCalls: [], usage: summaryUsage(record) ?? NONE };
      }
      if (phase.kind === "between") throw new Error("replay: the recorded run did not compact its context here");
      const recorded = record.steps[phase.step - 1];
      if (recorded) {
        return { content: recorded.text, toolCalls: recorded.toolCalls, usage: tokenUsageOf(recorded.usage) ?? NONE };
      }
      // The model that failed in the record fails here too; any other step beyond the record is a divergence.
      if (record.stop?.guard === "model_unavailable" && phase.step === record.steps.length + 1)
        throw new ModelUnavailableError("the model was unavailable in the recorded run");
      divergeOnce(state, `step ${phase.step} is beyond the record`);
      throw new ModelUnavailableError("replay: this step is beyond the record");
    },
  };
}

/** A tool for each one the run was offered: same name, description, parameters and effect; it never runs. */
export function replayTools(record: RunRecord): Tool[] {
  return record.settings.tools.map((spec) => ({
    name: spec.name,
    description: spec.description,
    schema: z.unknown(),
    parameters: spec.parameters,
    effect: spec.effect,
    // Records keep the provider's say in TOOL_POLICY's words.
    ...(spec.approval ? { approval: spec.approval === "approve" ? ("asks" as const) : ("runs without asking" as const) } : {}),
    execute: async () => {
      throw new Error("replay never runs a tool");
    },
  }));
}

const EXECUTED = new Set<RecordCall["outcome"]>(["ok", "error", "timeout"]);

/** The registry whose calls return what the recorded ones returned, by call id; a call the record did not run diverges. */
export class ReplayRegistry extends ToolRegistry {
  private readonly calls: ReadonlyMap<string, RecordCall>;

  constructor(
    tools: readonly Tool[],
    options: RegistryOptions,
    record: RunRecord,
    private readonly state: ReplayState,
  ) {
    super(tools, options);
    this.calls = new Map(record.steps.flatMap((step) => step.calls.map((call) => [call.callId, call] as const)));
  }

  override prepare(call: ToolCall): PreparedCall {
    const recorded = this.calls.get(call.id);
    if (recorded && (recorded.outcome === "invalid_args" || recorded.outcome === "unknown_tool"))
      return {
        kind: "rejected",
        call,
        signature: callSignature(call.name, call.arguments),
        outcome: recorded.outcome,
        message: recorded.result,
      };
    return super.prepare(call);
  }

  override async execute(prepared: Extract<PreparedCall, { kind: "ready" }>, _context: ToolContext): Promise<Execution> {
    const recorded = this.calls.get(prepared.call.id);
    if (recorded && EXECUTED.has(recorded.outcome))
      return { outcome: recorded.outcome as Execution["outcome"], result: recorded.result, durationMs: recorded.durationMs };
    divergeOnce(this.state, `${prepared.call.name} (${prepared.call.id}) would run, and the recorded run did not run it`);
    return { outcome: "error", result: "Error: (replay) the recorded run did not run this call, so its result is unknown.", durationMs: 0 };
  }
}
