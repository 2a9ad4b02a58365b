// A run's messages and their size in tokens, kept current on every append: folded in place from
// the yellow watermark, compacted by one model call from orange; red after both trips the token
// guard. Folding needs each tool result's outcome, so the context remembers them.
import { compactOlderTurns, foldOldToolResults } from "../context/context-window.js";
import { tokenStop, watermark } from "../guards/token-watermark.js";
import type { LoopDeps } from "./loop-types.js";
import type { AgentEvent, CallRecord, ChatMessage, GuardStop, TokenUsage } from "../../contracts/types.js";

export function addUsage(total: TokenUsage, more: TokenUsage | undefined): TokenUsage {
  if (!more) return total;
  const cachedTokens = (total.cachedTokens ?? 0) + (more.cachedTokens ?? 0);
  return {
    promptTokens: total.promptTokens + more.promptTokens,
    completionTokens: total.completionTokens + more.completionTokens,
    // Absent unless a server reported some: a run's usage stays as it was stored before cached tokens were counted.
    ...(cachedTokens > 0 ? { cachedTokens } : {}),
  };
}

export const usageTokens = (usage: TokenUsage | undefined): number => (usage ? usage.promptTokens + usage.completionTokens : 0);

export interface ContextCheck {
  readonly stop?: GuardStop;
  /** What a compaction's model call used. */
  readonly usage?: TokenUsage;
}

export class RunContext {
  private current: ChatMessage[];
  private count: number;
  private readonly outcomes = new Map<string, CallRecord["outcome"]>();

  constructor(
    messages: readonly ChatMessage[],
    settled: readonly CallRecord[],
    private readonly deps: Pick<LoopDeps, "counter" | "tools" | "model">,
    /** The tokens the messages may take: the context window less the reserved output. */
    readonly budget: number,
    /** The run's data-block boundary (context/data-blocks.ts). */
    private readonly boundary?: string,
  ) {
    this.current = [...messages];
    for (const call of settled) this.outcomes.set(call.callId, call.outcome);
    this.count = this.recount();
  }

  get messages(): ChatMessage[] {
    return this.current;
  }

  get tokens(): number {
    return this.count;
  }

  append(message: ChatMessage): void {
    this.current.push(message);
    this.count += this.deps.counter.countMessage(message);
  }

  /** A call's result, as the observation the model reads next. */
  settle(item: CallRecord): void {
    this.outcomes.set(item.callId, item.outcome);
    this.append({ role: "tool", toolCallId: item.callId, content: item.observation });
  }

  /** Whether manage has anything to do: below yellow (nearly every step) it does nothing, and the step need not wait for it. */
  get needsManaging(): boolean {
    return watermark(this.count, this.budget) !== "green";
  }

  /**
   * Folds from yellow, compacts from orange, and trips only when red after both. `budget`: another
   * endpoint's, smaller than the run's, when a step moves to it (the run's context stays so after).
   */
  async manage(runId: string, emit: (event: AgentEvent) => void, signal: AbortSignal, budget = this.budget): Promise<ContextCheck> {
    if (watermark(this.count, budget) === "green") return {};
    const before = this.count;
    const folded = foldOldToolResults(this.current, (callId) => this.outcomes.get(callId));
    if (folded.folded > 0) {
      this.replace(folded.messages);
      emit({ type: "folded", runId, messages: folded.folded, tokensBefore: before, tokensAfter: this.count });
    }
    let usage: TokenUsage | undefined;
    const afterFolding = watermark(this.count, budget);
    if (afterFolding === "orange" || afterFolding === "red") {
      const beforeCompaction = this.count;
      const compacted = await compactOlderTurns(
        this.current,
        this.deps.model,
        this.deps.counter,
        Math.floor(budget / 2),
        signal,
        this.boundary,
      );
      if (compacted) {
        usage = compacted.usage;
        this.replace(compacted.messages);
        emit({ type: "compacted", runId, tokensBefore: beforeCompaction, tokensAfter: this.count });
      }
    }
    const stop = watermark(this.count, budget) === "red" ? tokenStop(this.count, budget) : undefined;
    return { ...(stop ? { stop } : {}), ...(usage ? { usage } : {}) };
  }

  private replace(messages: readonly ChatMessage[]): void {
    this.current = [...messages];
    this.count = this.recount();
  }

  private recount(): number {
    return this.deps.counter.countMessages(this.current) + this.deps.counter.countTools(this.deps.tools.schemas);
  }
}
