// A run in progress: takes one step at a time (model call, tool calls, guards), folds and
// compacts its context, pauses for approvals and resolves them, and finishes with an answer
// or a guard's summary. loop.ts drives it.
import { blockedRecord, callRecord, policyDeniedRecord, processCalls, rejectedRecord, runPrepared, settleCall, type BatchContext } from "./call-batch.js";
import { compactOlderTurns, foldOldToolResults } from "./context-window.js";
import { checkErrorStreak, nextErrorStreak } from "./guards/consecutive-errors.js";
import { deadlineStop } from "./guards/deadline.js";
import { approvalExpiredStop, modelUnavailableStop, stopOf } from "./guards/external-stops.js";
import { checkStepLimit } from "./guards/step-limit.js";
import { tokenStop, watermark } from "./guards/token-watermark.js";
import type { LoopDeps, LoopResult, Resolution } from "./loop.js";
import type { GuardCounters, RunState } from "./run-state.js";
import { errorText, loggableError } from "./error-text.js";
import { summarize, summaryTimeoutMs } from "./summary.js";
import { sourceOf } from "./tool-source.js";
import type {
  AgentEvent,
  CallRecord,
  ChatMessage,
  EventSink,
  GuardStop,
  PendingApproval,
  RunOutcome,
  StepRecord,
  TokenUsage,
  ToolCall,
} from "./types.js";
import { ModelUnavailableError } from "../errors.js";

const MAX_CALL_ID_LENGTH = 40;
/** Epoch milliseconds with sub-millisecond precision: step times survive a restart. */
const now = () => performance.timeOrigin + performance.now();
/** After a Stop the summary may take this long; a hanging model then gets the summary built from the steps. */
const STOPPED_SUMMARY_MS = 1_000;
const EMPTY_REPLY_NUDGE: ChatMessage = { role: "system", content: "Your last reply was empty. Answer the person, or call one of the tools." };

/**
 * Model ids can be long or repeated (also across steps); ours stay short and unique within the
 * run, because a decision is claimed once per run and call id. `seen` holds the run's ids so far.
 */
function normalizeCallIds(calls: readonly ToolCall[], step: number, seen: Set<string>): readonly ToolCall[] {
  return calls.map((call, index) => {
    const usable = call.id.length > 0 && call.id.length <= MAX_CALL_ID_LENGTH && /^[\w.-]+$/.test(call.id) && !seen.has(call.id);
    let id = usable ? call.id : `call_${step}_${index + 1}`;
    for (let suffix = 2; !usable && seen.has(id); suffix++) id = `call_${step}_${index + 1}_${suffix}`;
    seen.add(id);
    return id === call.id ? call : { ...call, id };
  });
}

function addUsage(total: TokenUsage, more: TokenUsage | undefined): TokenUsage {
  return more ? { promptTokens: total.promptTokens + more.promptTokens, completionTokens: total.completionTokens + more.completionTokens } : total;
}

export type StepEnd = { readonly kind: "continue" } | { readonly kind: "answer"; readonly answer: string } | { readonly kind: "stop"; readonly stop: GuardStop } | { readonly kind: "pause"; readonly approval: PendingApproval };

/** One run in progress: its messages, steps and guard counters, and the step it is on. */
export class ActiveRun {
  messages: ChatMessage[];
  steps: StepRecord[];
  guards: GuardCounters;
  usage: TokenUsage;
  pending: RunState["pending"];
  private tokens: number;
  /** Model tokens used since the last `usageCheck`. */
  private unreported = 0;
  private readonly outcomes = new Map<string, CallRecord["outcome"]>();
  private readonly callIds = new Set<string>();
  private readonly budget: number;
  private readonly started = performance.now();
  private readonly elapsedBefore: number;
  private readonly deadline = new AbortController();
  /** The deadline or a Stop: what model calls and reads are cancelled by. */
  private readonly cancel: AbortSignal;
  private readonly timer: NodeJS.Timeout;
  private readonly clock: () => number;

  constructor(
    private readonly state: Omit<RunState, "pending"> & { pending?: RunState["pending"] },
    private readonly deps: LoopDeps,
    private readonly sink: EventSink,
    /** A person's Stop (reason: the GuardStop): cancels the model call and reads in flight, never a write. */
    private readonly stop?: AbortSignal,
  ) {
    this.cancel = stop ? AbortSignal.any([this.deadline.signal, stop]) : this.deadline.signal;
    this.messages = [...state.messages];
    this.steps = [...state.steps];
    this.guards = state.guards;
    this.usage = state.usage;
    this.pending = state.pending;
    this.elapsedBefore = state.elapsedMs;
    this.clock = deps.clock ?? Date.now;
    this.budget = deps.limits.contextWindow - deps.limits.reservedOutputTokens;
    for (const call of [...this.steps.flatMap((step) => step.calls), ...(state.pending?.done ?? [])]) this.outcomes.set(call.callId, call.outcome);
    for (const id of this.outcomes.keys()) this.callIds.add(id);
    for (const message of this.messages) if (message.role === "assistant") for (const call of message.toolCalls ?? []) this.callIds.add(call.id);
    this.tokens = this.recount();
    const remaining = Math.max(0, deps.limits.runTimeoutMs - state.elapsedMs);
    // A resumed run with no time left must not start its approved write before the timer fires.
    if (remaining === 0) this.deadline.abort(new Error("run deadline"));
    this.timer = setTimeout(() => this.deadline.abort(new Error("run deadline")), remaining);
    this.timer.unref();
  }

  get runId(): string {
    return this.state.runId;
  }

  emit(event: AgentEvent): void {
    try {
      this.sink(event);
    } catch (error) {
      this.deps.logger.warn({ runId: this.runId, err: error }, "event sink threw; ignored");
    }
  }

  /** What a server that reports no usage was sent and wrote, by our tokenizer. */
  private estimateUsage(content: string | null, calls: readonly ToolCall[]): number {
    const written = [content ?? "", ...calls.map((call) => `${call.name}${call.arguments}`)].join("\n");
    return this.tokens + this.deps.counter.countText(written);
  }

  /** Hands the tokens used since last time to `usageCheck` (a daily limit); its stop, if any. */
  private async reportUsage(): Promise<GuardStop | undefined> {
    const check = this.deps.usageCheck;
    if (!check || this.unreported === 0) return undefined;
    const tokens = this.unreported;
    this.unreported = 0;
    try {
      return await check({ runId: this.runId, origin: this.state.origin }, tokens);
    } catch (error) {
      this.deps.logger.warn({ runId: this.runId, err: error }, "the usage check threw; ignored");
      return undefined;
    }
  }

  private recount(): number {
    return this.deps.counter.countMessages(this.messages) + this.deps.counter.countTools(this.deps.tools.schemas);
  }

  append(message: ChatMessage): void {
    this.messages.push(message);
    this.tokens += this.deps.counter.countMessage(message);
  }

  private replaceMessages(messages: readonly ChatMessage[]): void {
    this.messages = [...messages];
    this.tokens = this.recount();
  }

  settle(item: CallRecord): void {
    this.outcomes.set(item.callId, item.outcome);
    this.append({ role: "tool", toolCallId: item.callId, content: item.observation });
  }

  private stopped(): GuardStop | undefined {
    return this.stop?.aborted ? stopOf(this.stop.reason) : undefined;
  }

  /** `signal`: the deadline alone for an approved write, which finishes (or times out) even after a Stop. */
  private batchContext(step: number, done: CallRecord[], signal: AbortSignal = this.cancel): BatchContext {
    return {
      tools: this.deps.tools,
      policy: this.deps.policy,
      oscillationWindow: this.deps.limits.oscillationWindow,
      toolContext: { signal, runId: this.runId, origin: this.state.origin },
      step,
      emit: (event) => this.emit(event),
      settle: (item) => {
        done.push(item);
        this.settle(item);
      },
    };
  }

  /** Folds from yellow, compacts from orange, and trips only when red after both. */
  private async manageContext(): Promise<GuardStop | undefined> {
    if (watermark(this.tokens, this.budget) === "green") return undefined;
    const before = this.tokens;
    const folded = foldOldToolResults(this.messages, (callId) => this.outcomes.get(callId));
    if (folded.folded > 0) {
      this.replaceMessages(folded.messages);
      this.emit({ type: "folded", runId: this.runId, messages: folded.folded, tokensBefore: before, tokensAfter: this.tokens });
    }
    const afterFolding = watermark(this.tokens, this.budget);
    if (afterFolding === "orange" || afterFolding === "red") {
      const beforeCompaction = this.tokens;
      const compacted = await compactOlderTurns(this.messages, this.deps.model, this.deps.counter, Math.floor(this.budget / 2), this.cancel);
      if (compacted) {
        this.usage = addUsage(this.usage, compacted.usage);
        this.unreported += compacted.usage ? compacted.usage.promptTokens + compacted.usage.completionTokens : 0;
        this.replaceMessages(compacted.messages);
        this.emit({ type: "compacted", runId: this.runId, tokensBefore: beforeCompaction, tokensAfter: this.tokens });
      }
    }
    return watermark(this.tokens, this.budget) === "red" ? tokenStop(this.tokens, this.budget) : undefined;
  }

  private block(calls: readonly ToolCall[], reason: string, step: number, done: CallRecord[]): void {
    const context = this.batchContext(step, done);
    for (const call of calls) this.guards = settleCall(this.guards, blockedRecord(call, reason), context, false);
  }

  private pause(index: number, startedAt: number, text: string | null, calls: readonly ToolCall[], done: readonly CallRecord[], args: unknown, usage?: TokenUsage): StepEnd {
    const call = calls[0]!;
    this.pending = { index, startedAt, text, calls, done, usage };
    const approval: PendingApproval = {
      runId: this.runId,
      callId: call.id,
      tool: call.name,
      ...sourceOf(this.deps.tools.get(call.name)),
      args,
      requester: this.state.origin.requester,
      origin: this.state.origin,
      expiresAt: this.clock() + this.deps.approvalTimeoutMs,
    };
    this.emit({ type: "approval_needed", runId: this.runId, approval });
    return { kind: "pause", approval };
  }

  private finishStep(index: number, startedAt: number, text: string | null, calls: readonly CallRecord[], usage?: TokenUsage): void {
    const durationMs = now() - startedAt;
    this.steps.push({ index, startedAt, durationMs, text, calls, usage });
    this.deps.logger.info(
      {
        runId: this.runId,
        step: index,
        tools: calls.map((call) => call.tool),
        args: calls.map((call) => call.signature.split("#")[1]),
        durationMs: Math.round(durationMs * 100) / 100,
        tokens: this.tokens,
        outcome: calls.length === 0 ? "answer" : calls.map((call) => call.outcome),
      },
      "step",
    );
  }

  private async runCalls(index: number, startedAt: number, text: string | null, calls: readonly ToolCall[], done: CallRecord[], usage?: TokenUsage): Promise<StepEnd> {
    const settled: CallRecord[] = done;
    const result = await processCalls(calls, this.guards, this.batchContext(index, settled));
    this.guards = result.guards;
    if (result.kind === "needs_approval") {
      if (!this.cancel.aborted) return this.pause(index, startedAt, text, result.calls, settled, result.args, usage);
      // Nobody is asked to approve a write for a run whose time is already up, or that a person stopped.
      const stopped = this.stopped();
      this.block(result.calls, stopped ? stopped.sentence.replace(/\.$/, "") : "the run's time ran out", index, settled);
      this.finishStep(index, startedAt, text, settled, usage);
      return { kind: "stop", stop: stopped ?? deadlineStop(this.deps.limits.runTimeoutMs) };
    }
    this.finishStep(index, startedAt, text, settled, usage);
    if (result.kind === "stopped") return { kind: "stop", stop: result.stop };
    return { kind: "continue" };
  }

  async step(): Promise<StepEnd> {
    const stoppedBefore = this.stopped();
    if (stoppedBefore) return { kind: "stop", stop: stoppedBefore };
    const limitStop = checkStepLimit(this.steps.length, this.deps.limits.maxSteps) ?? checkErrorStreak(this.guards.errorStreak, this.deps.limits.maxConsecutiveErrors);
    if (limitStop) return { kind: "stop", stop: limitStop };
    const tokenTrip = await this.manageContext();
    if (tokenTrip) return { kind: "stop", stop: tokenTrip };
    const usageStop = await this.reportUsage();
    if (usageStop) return { kind: "stop", stop: usageStop };

    const index = this.steps.length + 1;
    const startedAt = now();
    this.emit({ type: "step_started", runId: this.runId, step: index });
    let reply;
    try {
      reply = await this.deps.model.complete({ messages: this.messages, tools: this.deps.tools.schemas }, this.cancel);
    } catch (error) {
      const stopped = this.stopped();
      if (stopped) return { kind: "stop", stop: stopped };
      if (this.deadline.signal.aborted) return { kind: "stop", stop: deadlineStop(this.deps.limits.runTimeoutMs) };
      const reason = error instanceof ModelUnavailableError ? error.reason : errorText(error);
      this.deps.logger.error({ runId: this.runId, step: index, err: loggableError(error) }, "model call failed");
      return { kind: "stop", stop: modelUnavailableStop(reason) };
    }
    this.usage = addUsage(this.usage, reply.usage);
    // Estimated only when someone reads it: counting what the model wrote costs a few µs per step.
    if (this.deps.usageCheck) this.unreported += reply.usage ? reply.usage.promptTokens + reply.usage.completionTokens : this.estimateUsage(reply.content, reply.toolCalls);
    const toolCalls = normalizeCallIds(reply.toolCalls, index, this.callIds);
    this.emit({ type: "model_replied", runId: this.runId, step: index, text: reply.content, toolCalls, usage: reply.usage });

    if (toolCalls.length === 0) {
      const answer = reply.content?.trim();
      if (answer) {
        this.append({ role: "assistant", content: reply.content });
        this.finishStep(index, startedAt, reply.content, [], reply.usage);
        return { kind: "answer", answer };
      }
      this.guards = { ...this.guards, errorStreak: nextErrorStreak(this.guards.errorStreak, "empty_reply") };
      this.append(EMPTY_REPLY_NUDGE);
      this.finishStep(index, startedAt, null, [], reply.usage);
      return { kind: "continue" };
    }
    this.append({ role: "assistant", content: reply.content, toolCalls });
    const end = await this.runCalls(index, startedAt, reply.content, toolCalls, [], reply.usage);
    if (end.kind !== "continue") return end;
    const stopped = this.stopped();
    if (stopped) return { kind: "stop", stop: stopped };
    if (this.deadline.signal.aborted) return { kind: "stop", stop: deadlineStop(this.deps.limits.runTimeoutMs) };
    return end;
  }

  /** Applies a person's decision (or the expiry) to the waiting call, then finishes that step. */
  async resolve(resolution: Resolution): Promise<StepEnd> {
    const pending = this.pending!;
    this.pending = undefined;
    const [call, ...rest] = pending.calls;
    const done = [...pending.done];
    if (resolution.kind === "expired") {
      this.block(pending.calls, "nobody approved it in time", pending.index, done);
      this.finishStep(pending.index, pending.startedAt, pending.text, done, pending.usage);
      return { kind: "stop", stop: approvalExpiredStop(call!.name, this.deps.approvalTimeoutMs) };
    }
    this.emit({ type: "approval_decided", runId: this.runId, callId: call!.id, decision: resolution.decision, decidedBy: resolution.decidedBy });
    const prepared = this.deps.tools.prepare(call!);
    // An approved write finishes (or times out) even after a Stop: only the deadline cancels it.
    const context = this.batchContext(pending.index, done, this.deadline.signal);
    const settleUnrun = (item: CallRecord) => {
      this.guards = settleCall(this.guards, item, context, false);
    };
    if (resolution.decision === "deny") {
      const who = resolution.decidedBy.name ?? resolution.decidedBy.id;
      const message = `Denied by ${who}: the person did not approve running ${call!.name}, so it did not run. Do not ask again; continue without it or answer.`;
      settleUnrun(callRecord(call!, prepared.signature, "denied", message, message));
    } else if (prepared.kind === "rejected") {
      settleUnrun(rejectedRecord(prepared, this.deps.tools));
    } else if (this.deps.policy(prepared.tool) === "deny") {
      // The policy may have changed while the request waited (a restart with a new TOOL_POLICY).
      settleUnrun(policyDeniedRecord(call!, prepared.signature));
    } else {
      this.guards = settleCall(this.guards, await runPrepared(prepared, context), context, true);
    }
    return this.runCalls(pending.index, pending.startedAt, pending.text, rest, done, pending.usage);
  }

  /** Run time left; time spent waiting for a person does not count. */
  private remainingMs(): number {
    return Math.max(0, this.deps.limits.runTimeoutMs - (this.elapsedBefore + (performance.now() - this.started)));
  }

  snapshot(): RunState {
    return {
      version: 1,
      runId: this.runId,
      origin: this.state.origin,
      question: this.state.question,
      messages: this.messages,
      steps: this.steps,
      guards: this.guards,
      usage: this.usage,
      elapsedMs: this.elapsedBefore + (performance.now() - this.started),
      ...(this.pending ? { pending: this.pending } : {}),
    };
  }

  /** The steps as the person should see them, including a step that waits for approval. */
  visibleSteps(): StepRecord[] {
    if (!this.pending) return this.steps;
    const { index, startedAt, text, calls, done, usage } = this.pending;
    const waiting = calls[0]!;
    const placeholder: CallRecord = { callId: waiting.id, tool: waiting.name, args: waiting.arguments, signature: "", outcome: "needs_approval", result: "waiting for approval", observation: "", durationMs: 0 };
    return [...this.steps, { index, startedAt, durationMs: now() - startedAt, text, calls: [...done, placeholder], usage }];
  }

  async finish(end: Exclude<StepEnd, { kind: "continue" }>): Promise<LoopResult> {
    clearTimeout(this.timer);
    let outcome: RunOutcome;
    if (end.kind === "pause") {
      outcome = { status: "paused", runId: this.runId, pending: end.approval, steps: this.visibleSteps(), usage: this.usage };
    } else if (end.kind === "answer") {
      outcome = { status: "answered", runId: this.runId, answer: end.answer, steps: this.steps, usage: this.usage };
    } else {
      this.emit({ type: "guard_tripped", runId: this.runId, stop: end.stop });
      this.deps.logger.warn({ runId: this.runId, guard: end.stop.guard, detail: end.stop.detail }, "guard tripped");
      const summary = await summarize(
        { messages: this.messages, steps: this.steps, question: this.state.question, stop: end.stop, budget: this.budget },
        this.deps.model,
        this.deps.counter,
        end.stop.guard === "stopped" ? STOPPED_SUMMARY_MS : summaryTimeoutMs(this.deps.limits.runTimeoutMs, this.remainingMs()),
      );
      this.usage = addUsage(this.usage, summary.usage);
      this.unreported += summary.usage ? summary.usage.promptTokens + summary.usage.completionTokens : 0;
      outcome = { status: "answered", runId: this.runId, answer: summary.answer, stop: end.stop, steps: this.steps, usage: this.usage };
    }
    await this.reportUsage();
    this.emit({ type: "final", runId: this.runId, outcome });
    return { outcome, state: this.snapshot() };
  }
}
