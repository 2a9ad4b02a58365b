// A run in progress: takes one step at a time (model call, tool calls, guards), folds and
// compacts its context, pauses for approvals and resolves them, and finishes with an answer
// or a guard's summary. loop.ts drives it.
import { unrunRecord, withWaitingStep } from "./approval-resolution.js";
import { blockedRecord, processCalls, runPrepared, settleCall, type BatchContext } from "./call-batch.js";
import { normalizeCallIds } from "./call-ids.js";
import { checkErrorStreak, nextErrorStreak } from "./guards/consecutive-errors.js";
import { deadlineStop } from "./guards/deadline.js";
import { approvalExpiredStop, modelUnavailableStop, stopOf } from "./guards/external-stops.js";
import { checkStepLimit } from "./guards/step-limit.js";
import type { LoopDeps, LoopResult, Resolution, StopSignal } from "./loop.js";
import type { GuardCounters, RunState } from "./run-state.js";
import { errorText, loggableError } from "./error-text.js";
import { addUsage, RunContext, usageTokens } from "./run-context.js";
import { UsageMeter } from "./usage-meter.js";
import { meteredModel } from "./metered-model.js";
import { summarize, summaryTimeoutMs } from "./summary.js";
import { sourceOf } from "./tool-source.js";
import type {
  AgentEvent,
  CallRecord,
  ChatMessage,
  EventSink,
  GuardStop,
  Model,
  ModelReply,
  PendingApproval,
  RunOutcome,
  StepRecord,
  TokenUsage,
  ToolCall,
} from "./types.js";
import { ModelUnavailableError } from "../errors.js";

/** Epoch milliseconds with sub-millisecond precision: step times survive a restart. */
const now = () => performance.timeOrigin + performance.now();
/** After a Stop the summary may take this long; a hanging model then gets the summary built from the steps. */
const STOPPED_SUMMARY_MS = 1_000;
const EMPTY_REPLY_NUDGE: ChatMessage = {
  role: "system",
  content: "Your last reply was empty. Answer the person, or call one of the tools.",
};

/** Where a step's settled calls go: its record list and the run's messages (made by a function: no closure per step beyond it). */
function settlerOf(done: CallRecord[], context: RunContext): (item: CallRecord) => void {
  return (item) => {
    done.push(item);
    context.settle(item);
  };
}

export type StepEnd =
  | { readonly kind: "continue" }
  | { readonly kind: "answer"; readonly answer: string }
  | { readonly kind: "stop"; readonly stop: GuardStop }
  | { readonly kind: "pause"; readonly approval: PendingApproval };

/** One run in progress: its messages, steps and guard counters, and the step it is on. */
export class ActiveRun {
  steps: StepRecord[];
  guards: GuardCounters;
  usage: TokenUsage;
  pending: RunState["pending"];
  private readonly context: RunContext;
  private readonly meter: UsageMeter;
  /** The model for the calls besides the steps (compaction, summary): metered when the usage is read. */
  private readonly sideModel: Model;
  private readonly callIds = new Set<string>();
  private readonly started = performance.now();
  private readonly elapsedBefore: number;
  /** Set when the run's time is up; `deadline` is that as a signal, made only for a write (which a Stop does not cancel). */
  private expiredBy: Error | undefined;
  private deadline: AbortController | undefined;
  /** Aborted by the deadline or a Stop: what model calls and reads are cancelled by. */
  private readonly cancelled = new AbortController();
  private readonly cancel: AbortSignal;
  /** Bound once per run: every step's batch context reuses them. */
  private readonly emitter: (event: AgentEvent) => void;
  private readonly writeSignal: () => AbortSignal;
  private readonly timer: NodeJS.Timeout;
  private readonly clock: () => number;

  constructor(
    private readonly state: Omit<RunState, "pending"> & { pending?: RunState["pending"] },
    private readonly deps: LoopDeps,
    private readonly sink: EventSink,
    /** A person's Stop (reason: the GuardStop): cancels the model call and reads in flight, never a write. */
    private readonly stop?: StopSignal,
  ) {
    // One controller that the deadline and a Stop both abort, rather than AbortSignal.any (tens of µs per run); the
    // deadline is a flag, and becomes a signal only for an approved write: a signal costs µs, and most runs never need it.
    this.cancel = this.cancelled.signal;
    this.emitter = this.emit.bind(this);
    this.writeSignal = this.deadlineSignal.bind(this);
    if (stop?.aborted) this.handleEvent();
    else stop?.addEventListener("abort", this, { once: true });
    this.steps = [...state.steps];
    this.guards = state.guards;
    this.usage = state.usage;
    this.pending = state.pending;
    this.elapsedBefore = state.elapsedMs;
    this.clock = deps.clock ?? Date.now;
    const settled = [...this.steps.flatMap((step) => step.calls), ...(state.pending?.done ?? [])];
    this.meter = new UsageMeter(deps, { runId: state.runId, origin: state.origin });
    // Compaction and the summary go to the meter through the model itself; built only when someone reads the usage.
    this.sideModel = this.meter.wanted ? meteredModel(deps.model, deps.counter, (tokens) => this.meter.add(tokens)) : deps.model;
    const budget = deps.limits.contextWindow - deps.limits.reservedOutputTokens;
    this.context = new RunContext(state.messages, settled, { counter: deps.counter, tools: deps.tools, model: this.sideModel }, budget);
    for (const call of settled) this.callIds.add(call.callId);
    for (const message of state.messages)
      if (message.role === "assistant") for (const call of message.toolCalls ?? []) this.callIds.add(call.id);
    const remaining = Math.max(0, deps.limits.runTimeoutMs - state.elapsedMs);
    // A resumed run with no time left must not start its approved write before the timer fires.
    if (remaining === 0) this.expire();
    this.timer = setTimeout(() => this.expire(), remaining);
    this.timer.unref();
  }

  /**
   * The Stop's abort event: the run listens to it itself (an EventListener object) rather than through a
   * function made per run. Cancels the model call and reads in flight.
   */
  handleEvent(): void {
    this.cancelled.abort(this.stop?.reason);
  }

  get runId(): string {
    return this.state.runId;
  }

  private expire(): void {
    if (this.expiredBy) return;
    const reason = new Error("run deadline");
    this.expiredBy = reason;
    this.deadline?.abort(reason);
    this.cancelled.abort(reason);
  }

  /** The deadline alone, for a write that finishes (or times out) even after a Stop. */
  private deadlineSignal(): AbortSignal {
    if (!this.deadline) {
      this.deadline = new AbortController();
      if (this.expiredBy) this.deadline.abort(this.expiredBy);
    }
    return this.deadline.signal;
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
    return this.context.tokens + this.deps.counter.countText(written);
  }

  private stopped(): GuardStop | undefined {
    return this.stop?.aborted ? stopOf(this.stop.reason) : undefined;
  }

  /** `signal`: the deadline alone for an approved write, which finishes (or times out) even after a Stop, as an allowed one does. */
  private batchContext(step: number, done: CallRecord[], signal: AbortSignal = this.cancel): BatchContext {
    return {
      tools: this.deps.tools,
      policy: this.deps.policy,
      oscillationWindow: this.deps.limits.oscillationWindow,
      toolContext: { signal, runId: this.runId, origin: this.state.origin },
      step,
      emit: this.emitter,
      writeSignal: this.writeSignal,
      settle: settlerOf(done, this.context),
    };
  }

  /** Folds and compacts the context; the token guard's stop when it is still red. */
  private async manageContext(): Promise<GuardStop | undefined> {
    const check = await this.context.manage(this.runId, (event) => this.emit(event), this.cancel);
    this.usage = addUsage(this.usage, check.usage);
    return check.stop;
  }

  private block(calls: readonly ToolCall[], reason: string, step: number, done: CallRecord[]): void {
    const context = this.batchContext(step, done);
    for (const call of calls) this.guards = settleCall(this.guards, blockedRecord(call, reason), context, false);
  }

  private pause(
    index: number,
    startedAt: number,
    text: string | null,
    calls: readonly ToolCall[],
    done: readonly CallRecord[],
    args: unknown,
    usage?: TokenUsage,
  ): StepEnd {
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
    // Built only when it is written: a busy process takes thousands of steps a second.
    if (!this.deps.logger.isLevelEnabled("info")) return;
    this.deps.logger.info(
      {
        runId: this.runId,
        step: index,
        tools: calls.map((call) => call.tool),
        args: calls.map((call) => call.signature.split("#")[1]),
        durationMs: Math.round(durationMs * 100) / 100,
        tokens: this.context.tokens,
        outcome: calls.length === 0 ? "answer" : calls.map((call) => call.outcome),
      },
      "step",
    );
  }

  private async runCalls(
    index: number,
    startedAt: number,
    text: string | null,
    calls: readonly ToolCall[],
    done: CallRecord[],
    usage?: TokenUsage,
  ): Promise<StepEnd> {
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
    const limitStop =
      checkStepLimit(this.steps.length, this.deps.limits.maxSteps) ??
      checkErrorStreak(this.guards.errorStreak, this.deps.limits.maxConsecutiveErrors);
    if (limitStop) return { kind: "stop", stop: limitStop };
    const tokenTrip = this.context.needsManaging ? await this.manageContext() : undefined;
    if (tokenTrip) return { kind: "stop", stop: tokenTrip };
    const usageStop = this.meter.due ? await this.meter.report() : undefined;
    if (usageStop) return { kind: "stop", stop: usageStop };

    const index = this.steps.length + 1;
    const startedAt = now();
    const request = { messages: this.context.messages, tools: this.deps.tools.schemas };
    this.emit({ type: "step_started", runId: this.runId, step: index, request });
    let reply: ModelReply;
    const called = performance.now();
    try {
      reply = await this.deps.model.complete(request, this.cancel);
    } catch (error) {
      const stopped = this.stopped();
      if (stopped) return { kind: "stop", stop: stopped };
      if (this.expiredBy) return { kind: "stop", stop: deadlineStop(this.deps.limits.runTimeoutMs) };
      const reason = error instanceof ModelUnavailableError ? error.reason : errorText(error);
      this.deps.logger.error({ runId: this.runId, step: index, err: loggableError(error) }, "model call failed");
      return { kind: "stop", stop: modelUnavailableStop(reason) };
    }
    this.usage = addUsage(this.usage, reply.usage);
    // Estimated only when someone reads it: counting what the model wrote costs a few µs per step.
    if (this.meter.wanted) this.meter.add(reply.usage ? usageTokens(reply.usage) : this.estimateUsage(reply.content, reply.toolCalls));
    const toolCalls = normalizeCallIds(reply.toolCalls, index, this.callIds);
    const durationMs = performance.now() - called;
    this.emit({ type: "model_replied", runId: this.runId, step: index, text: reply.content, toolCalls, usage: reply.usage, durationMs });

    if (toolCalls.length === 0) {
      const answer = reply.content?.trim();
      if (answer) {
        this.context.append({ role: "assistant", content: reply.content });
        this.finishStep(index, startedAt, reply.content, [], reply.usage);
        return { kind: "answer", answer };
      }
      this.guards = { ...this.guards, errorStreak: nextErrorStreak(this.guards.errorStreak, "empty_reply") };
      this.context.append(EMPTY_REPLY_NUDGE);
      this.finishStep(index, startedAt, null, [], reply.usage);
      return { kind: "continue" };
    }
    this.context.append({ role: "assistant", content: reply.content, toolCalls });
    const end = await this.runCalls(index, startedAt, reply.content, toolCalls, [], reply.usage);
    if (end.kind !== "continue") return end;
    const stopped = this.stopped();
    if (stopped) return { kind: "stop", stop: stopped };
    if (this.expiredBy) return { kind: "stop", stop: deadlineStop(this.deps.limits.runTimeoutMs) };
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
    this.emit({
      type: "approval_decided",
      runId: this.runId,
      callId: call!.id,
      decision: resolution.decision,
      decidedBy: resolution.decidedBy,
    });
    const prepared = this.deps.tools.prepare(call!);
    // An approved write finishes (or times out) even after a Stop: only the deadline cancels it.
    const context = this.batchContext(pending.index, done, this.deadlineSignal());
    const unrun = unrunRecord(resolution, call!, prepared, this.deps.tools, this.deps.policy);
    if (unrun) this.guards = settleCall(this.guards, unrun, context, false);
    else if (prepared.kind === "ready") this.guards = settleCall(this.guards, await runPrepared(prepared, context), context, true);
    return this.runCalls(pending.index, pending.startedAt, pending.text, rest, done, pending.usage);
  }

  /** Hands the tokens not reported yet to the usage check (a run stopping at a checkpoint for shutdown). */
  async reportUsage(): Promise<void> {
    if (this.meter.due) await this.meter.report();
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
      messages: this.context.messages,
      steps: this.steps,
      guards: this.guards,
      usage: this.usage,
      elapsedMs: this.elapsedBefore + (performance.now() - this.started),
      ...(this.pending ? { pending: this.pending } : {}),
    };
  }

  /** The steps as the person should see them, including a step that waits for approval. */
  visibleSteps(): StepRecord[] {
    return withWaitingStep(this.steps, this.pending, now());
  }

  async finish(end: Exclude<StepEnd, { kind: "continue" }>): Promise<LoopResult> {
    clearTimeout(this.timer);
    this.stop?.removeEventListener("abort", this);
    let outcome: RunOutcome;
    if (end.kind === "pause") {
      outcome = { status: "paused", runId: this.runId, pending: end.approval, steps: this.visibleSteps(), usage: this.usage };
    } else if (end.kind === "answer") {
      outcome = { status: "answered", runId: this.runId, answer: end.answer, steps: this.steps, usage: this.usage };
    } else {
      this.emit({ type: "guard_tripped", runId: this.runId, stop: end.stop });
      this.deps.logger.warn({ runId: this.runId, guard: end.stop.guard, detail: end.stop.detail }, "guard tripped");
      const summary = await summarize(
        { messages: this.context.messages, steps: this.steps, question: this.state.question, stop: end.stop, budget: this.context.budget },
        this.sideModel,
        this.deps.counter,
        end.stop.guard === "stopped" ? STOPPED_SUMMARY_MS : summaryTimeoutMs(this.deps.limits.runTimeoutMs, this.remainingMs()),
      );
      this.usage = addUsage(this.usage, summary.usage);
      outcome = { status: "answered", runId: this.runId, answer: summary.answer, stop: end.stop, steps: this.steps, usage: this.usage };
    }
    if (this.meter.due) await this.meter.report();
    this.emit({ type: "final", runId: this.runId, outcome });
    return { outcome, state: this.snapshot() };
  }
}
