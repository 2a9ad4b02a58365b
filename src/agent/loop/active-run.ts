// A run in progress: takes one step at a time (the guards, the model call, the tool calls), folds
// and compacts its context, pauses for approvals and resolves them, and finishes with an answer
// or a guard's summary. loop.ts drives it and checkpoints between steps.
import { approvalRequest, unrunRecord, withWaitingStep } from "./approval-resolution.js";
import { blockedRecord, callRecord, processCalls, runPrepared, settleCall, type BatchContext } from "./call-batch.js";
import { knownCallIds, normalizeCallIds } from "./call-ids.js";
import { checkErrorStreak, nextErrorStreak } from "../guards/consecutive-errors.js";
import { CONNECT_WAIT_MS, pauseExpiredStop } from "../guards/external-stops.js";
import { checkStepLimit } from "../guards/step-limit.js";
import type { LoopDeps, LoopResult, Resolution, StepEnd, StopSignal } from "./loop-types.js";
import type { GuardCounters, RunState } from "./run-state.js";
import { addUsage, RunContext } from "./run-context.js";
import { RunCancellation } from "./run-cancellation.js";
import { callAsker, type CallAsker } from "./person-questions.js";
import { logStep } from "./step-log.js";
import { replyUsage, UsageMeter } from "./usage-meter.js";
import { meteredModel } from "../models/metered-model.js";
import { newBoundary } from "../context/data-blocks.js";
import { keepSeen } from "../context/seen-sources.js";
import { untrustedWriteVerdict, refusedWriteObservation, type UntrustedWriteVerdict } from "../context/untrusted-writes.js";
import { writeOrigins } from "../context/write-origins.js";
import { callSignature } from "../tools/signature.js";
import { summarize, summaryTimeoutMs } from "../context/summary.js";
import { EMPTY_REPLY_NUDGE } from "../context/system-prompt.js";
import { addedText } from "./added-text.js";
import { channelReadBy, type SourcedText, type WriteOrigin, type WriteProvenance } from "../../contracts/provenance.js";
import type {
  AddedMessage,
  AddedNote,
  AgentEvent,
  CallRecord,
  EventSink,
  GuardStop,
  Model,
  PersonForms,
  StepRecord,
  TokenUsage,
  ToolCall,
} from "../../contracts/types.js";
import { modelCallStop } from "./model-call-stop.js";
import { outcomeOf } from "./run-outcome.js";
import { stepCall, stepMetaOf, type StepMeta } from "./step-call.js";

/** Epoch milliseconds with sub-millisecond precision: step times survive a restart. */
const now = () => performance.timeOrigin + performance.now();
/** After a Stop the summary may take this long; a hanging model then gets the summary built from the steps. */
const STOPPED_SUMMARY_MS = 1_000;

/** One run in progress: its messages, steps and guard counters, and the step it is on. */
export class ActiveRun {
  steps: StepRecord[];
  guards: GuardCounters;
  /** The intake ids of the messages added to the run so far (see add). */
  readonly taken: string[];
  /** Those added since the last step, for the next step's record. */
  private added: AddedNote[];
  /** What the run read from others (bounded), for the origins of a write's arguments. */
  private sources: SourcedText[];
  /** The channels the run's calls read: each step after such a read names them (step_started), so what the model writes is not streamed where it may be held. */
  private readonly channelsRead = new Set<string>();
  usage: TokenUsage;
  pending: RunState["pending"];
  private readonly context: RunContext;
  private readonly meter: UsageMeter;
  /** The model for the calls besides the steps (compaction, summary): metered when the usage is read. */
  private readonly sideModel: Model;
  private readonly callIds: Set<string>;
  private readonly cancellation: RunCancellation;
  /** Bound once per run: every step's batch context reuses them. */
  private readonly emitter: (event: AgentEvent) => void;
  private readonly writeSignal: () => AbortSignal;
  private readonly clock: () => number;
  /** What the run's data blocks are marked with: kept from its start, or drawn for a run stored before there were any. */
  private readonly boundary: string;

  constructor(
    private readonly state: Omit<RunState, "pending"> & { pending?: RunState["pending"] },
    private readonly deps: LoopDeps,
    private readonly sink: EventSink,
    /** A person's Stop (reason: the GuardStop): cancels the model call and reads in flight, never a write. */
    stop?: StopSignal,
  ) {
    this.cancellation = new RunCancellation(stop, deps.limits.runTimeoutMs, state.elapsedMs);
    this.emitter = this.emit.bind(this);
    this.writeSignal = this.cancellation.writeSignal.bind(this.cancellation);
    this.steps = [...state.steps];
    this.taken = [...(state.taken ?? [])];
    this.added = [...(state.added ?? [])];
    this.sources = [...(state.sources ?? [])];
    this.guards = state.guards;
    this.usage = state.usage;
    this.pending = state.pending;
    this.clock = deps.clock ?? Date.now;
    this.boundary = state.boundary ?? newBoundary();
    const settled = [...this.steps.flatMap((step) => step.calls), ...(state.pending?.done ?? [])];
    this.noteChannelsRead(settled);
    this.meter = new UsageMeter(deps, { runId: state.runId, origin: state.origin });
    // Compaction and the summary go to the meter through the model itself; built only when someone reads the usage.
    this.sideModel = meteredModel(deps.model, deps.counter, this.meter.wanted ? (tokens) => this.meter.add(tokens) : undefined);
    const budget = deps.limits.contextWindow - deps.limits.reservedOutputTokens;
    this.context = new RunContext(
      state.messages,
      settled,
      { counter: deps.counter, tools: deps.tools, model: this.sideModel },
      budget,
      this.boundary,
    );
    this.callIds = knownCallIds(settled, state.messages);
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

  /** `signal`: the deadline alone for an approved write, which finishes (or times out) even after a Stop, as an allowed one does. */
  private batchContext(step: number, done: CallRecord[], signal: AbortSignal = this.cancellation.signal): BatchContext {
    return {
      tools: this.deps.tools,
      policy: this.deps.policy,
      oscillationWindow: this.deps.limits.oscillationWindow,
      toolContext: this.deps.answerFiles
        ? { signal, runId: this.runId, origin: this.state.origin, answerFiles: this.deps.answerFiles }
        : { signal, runId: this.runId, origin: this.state.origin },
      step,
      boundary: this.boundary,
      emit: this.emitter,
      writeSignal: this.writeSignal,
      seen: (text) => {
        this.sources = keepSeen(this.sources, [text]);
      },
      fromOthers: (args) => this.verdictOf(args).kind !== "own",
      ...(this.deps.forms ? { asker: this.asker(step, this.deps.forms) } : {}),
      // A settled call goes to the step's records and the run's messages.
      settle: (item) => {
        done.push(item);
        this.context.settle(item);
      },
    };
  }

  private asker(step: number, forms: PersonForms): CallAsker {
    const run = { runId: this.runId, origin: this.state.origin };
    return callAsker({ forms, run, step, emit: this.emitter, hold: () => this.cancellation.hold(), logger: this.deps.logger });
  }

  /**
   * Folds and compacts the context; the token guard's stop when it is still red. `budget`: a
   * smaller endpoint's, when a step moves to it.
   */
  private async manageContext(signal = this.cancellation.signal, budget?: number): Promise<GuardStop | undefined> {
    const check = await this.context.manage(this.runId, this.emitter, signal, budget);
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
    meta: StepMeta,
    connect?: string,
    provenance?: WriteProvenance,
  ): StepEnd {
    this.pending = { index, startedAt, text, calls, done, ...meta, ...(connect ? { connect } : {}) };
    const expiresAt = this.clock() + (connect ? CONNECT_WAIT_MS : this.deps.approvalTimeoutMs);
    const request = approvalRequest(this.runId, this.state.origin, calls[0]!, this.deps.tools, args, expiresAt, connect);
    const approval = provenance ? { ...request, provenance } : request;
    if (provenance) {
      const { origins } = provenance;
      this.emit({
        type: "untrusted_write",
        runId: this.runId,
        step: index,
        callId: calls[0]!.id,
        tool: calls[0]!.name,
        verdict: "warned",
        origins,
      });
    }
    this.emit({ type: "approval_needed", runId: this.runId, approval });
    return { kind: "pause", approval };
  }

  /** The requester's own words in this run: the question and what they added while it worked. */
  private requesterTexts(): SourcedText[] {
    const person = this.state.origin.requester;
    const notes = [...this.steps.flatMap((step) => step.added ?? []), ...this.added];
    return [this.state.question, ...notes.map((note) => note.text)].map((text) => ({ source: { kind: "requester", person }, text }));
  }

  /** Where the write's arguments came from, and what UNTRUSTED_WRITES makes of it. */
  private verdictOf(args: unknown): UntrustedWriteVerdict {
    const origins = writeOrigins(args, [...this.requesterTexts(), ...this.sources]);
    return untrustedWriteVerdict(origins, this.deps.untrustedWrites ?? "warn");
  }

  /** A write refused without asking: the model reads why and the trace shows it; the caller goes on with the calls after it. */
  private refuseWrite(call: ToolCall, origins: readonly WriteOrigin[], index: number, done: CallRecord[]): void {
    this.emit({ type: "untrusted_write", runId: this.runId, step: index, callId: call.id, tool: call.name, verdict: "refused", origins });
    const why = refusedWriteObservation(call.name, origins);
    const record = callRecord(call, callSignature(call.name, call.arguments), "denied", why, why);
    this.guards = settleCall(this.guards, record, this.batchContext(index, done), false);
  }

  private finishStep(index: number, startedAt: number, text: string | null, calls: readonly CallRecord[], meta: StepMeta): void {
    const durationMs = now() - startedAt;
    const added = this.added.length > 0 ? { added: this.added } : {};
    this.added = [];
    this.steps.push({ index, startedAt, durationMs, text, calls, ...meta, ...added });
    this.noteChannelsRead(calls);
    logStep(this.deps.logger, this.runId, index, calls, durationMs, this.context.tokens);
  }

  private noteChannelsRead(calls: readonly CallRecord[]): void {
    for (const call of calls) {
      const channel = channelReadBy(call);
      if (channel !== undefined) this.channelsRead.add(channel);
    }
  }

  private async runCalls(
    index: number,
    startedAt: number,
    text: string | null,
    calls: readonly ToolCall[],
    done: CallRecord[],
    meta: StepMeta,
  ): Promise<StepEnd> {
    const settled: CallRecord[] = done;
    const result = await processCalls(calls, this.guards, this.batchContext(index, settled));
    this.guards = result.guards;
    if (result.kind === "needs_approval") {
      const cut = this.cancellation.interrupted();
      // A call that waits for a connection is asked about (and checked) once it is connected.
      const verdict: UntrustedWriteVerdict = cut || result.connect ? { kind: "own" } : this.verdictOf(result.args);
      if (verdict.kind === "refuse") {
        this.refuseWrite(result.calls[0]!, verdict.origins, index, settled);
        return this.runCalls(index, startedAt, text, result.calls.slice(1), settled, meta);
      }
      const provenance = verdict.kind === "ask" ? verdict.provenance : undefined;
      if (!cut) return this.pause(index, startedAt, text, result.calls, settled, result.args, meta, result.connect, provenance);
      // Nobody is asked to approve a write for a run whose time is already up, or that a person stopped.
      this.block(result.calls, cut.guard === "stopped" ? cut.sentence.replace(/\.$/, "") : "the run's time ran out", index, settled);
      this.finishStep(index, startedAt, text, settled, meta);
      return { kind: "stop", stop: cut };
    }
    this.finishStep(index, startedAt, text, settled, meta);
    if (result.kind === "stopped") return { kind: "stop", stop: result.stop };
    return { kind: "continue" };
  }

  /**
   * One turn: check the guards, ask the model, handle its reply (an answer, an empty reply, or
   * calls), run the calls, and end on a Stop or the deadline that came meanwhile. The caller
   * checkpoints after a turn that continues.
   */
  async step(): Promise<StepEnd> {
    const guard = await this.guardStop();
    if (guard) return { kind: "stop", stop: guard };

    const index = this.steps.length + 1;
    const startedAt = now();
    const call = stepCall({
      runId: this.runId,
      step: index,
      messages: this.context.messages,
      tools: this.deps.tools.schemas,
      emit: this.emitter,
      remainingMs: this.cancellation.remainingMs(),
      // The messages once folded or compacted for a smaller window, or none when they can't fit it.
      fitWindow: async (tokens, signal) =>
        (await this.manageContext(signal, tokens - this.deps.limits.reservedOutputTokens)) ? undefined : this.context.messages,
    });
    this.emit({
      type: "step_started",
      runId: this.runId,
      step: index,
      request: call.request,
      ...(this.channelsRead.size > 0 ? { channelsRead: [...this.channelsRead] } : {}),
    });
    const called = performance.now();
    const replied = await this.deps.model
      .complete(call.request, this.cancellation.signal)
      .catch((error: unknown) => this.modelFailed(error, index));
    if ("kind" in replied) return replied;
    // One figure for the limits, the records and /usage: the server's, else counted here.
    const reply = { ...replied, usage: replyUsage(replied, this.context.tokens, this.deps.counter) };
    const meta = call.meta(reply);
    this.usage = addUsage(this.usage, reply.usage);
    if (this.meter.wanted) this.meter.addReply(reply);
    const toolCalls = normalizeCallIds(reply.toolCalls, index, this.callIds);
    const durationMs = performance.now() - called;
    this.emit(call.replied(reply, toolCalls, durationMs));

    if (toolCalls.length === 0) {
      const answer = reply.content?.trim();
      this.context.append(answer ? { role: "assistant", content: reply.content } : EMPTY_REPLY_NUDGE);
      this.finishStep(index, startedAt, answer ? reply.content : null, [], meta);
      if (answer) return { kind: "answer", answer };
      this.guards = { ...this.guards, errorStreak: nextErrorStreak(this.guards.errorStreak, "empty_reply") };
      return { kind: "continue" };
    }

    this.context.append({ role: "assistant", content: reply.content, toolCalls });
    const end = await this.runCalls(index, startedAt, reply.content, toolCalls, [], meta);
    const cut = end.kind === "continue" ? this.cancellation.interrupted() : undefined;
    return cut ? { kind: "stop", stop: cut } : end;
  }

  /** The guards checked before each model call, in this order; the first that fires ends the run with its summary. */
  private async guardStop(): Promise<GuardStop | undefined> {
    return (
      this.cancellation.interrupted() ??
      checkStepLimit(this.steps.length, this.deps.limits.maxSteps) ??
      checkErrorStreak(this.guards.errorStreak, this.deps.limits.maxConsecutiveErrors) ??
      (this.context.needsManaging ? await this.manageContext() : undefined) ??
      (this.meter.due ? await this.meter.report() : undefined)
    );
  }

  /** A model call that threw: a Stop or the deadline that cancelled it, else the model is unavailable. */
  private modelFailed(error: unknown, step: number): StepEnd {
    return { kind: "stop", stop: this.cancellation.interrupted() ?? modelCallStop(error, this.deps.logger, { runId: this.runId, step }) };
  }

  /** Applies a person's decision (or the expiry, or a refusal to go on) to the waiting call, then finishes that step. */
  async resolve(resolution: Resolution): Promise<StepEnd> {
    const pending = this.pending!;
    this.pending = undefined;
    const meta = stepMetaOf(pending);
    const [call, ...rest] = pending.calls;
    const done = [...pending.done];
    if (resolution.kind !== "decided") {
      const stop =
        resolution.kind === "expired" ? pauseExpiredStop(call!.name, pending.connect, this.deps.approvalTimeoutMs) : resolution.stop;
      const why = pending.connect ? `${pending.connect} was not connected in time` : "nobody approved it in time";
      this.block(pending.calls, resolution.kind === "expired" ? why : stop.detail, pending.index, done);
      this.finishStep(pending.index, pending.startedAt, pending.text, done, meta);
      return { kind: "stop", stop };
    }
    // Connected: the waiting call goes through the policy (and an approval, for a write) like any call, now as the person.
    // Taken with a new connection, it repeats nothing: the same call may now get another answer.
    if (pending.connect) {
      this.guards = { ...this.guards, repeat: { streak: 0 } };
      return this.runCalls(pending.index, pending.startedAt, pending.text, pending.calls, done, meta);
    }
    const { decision, decidedBy } = resolution;
    this.emit({ type: "approval_decided", runId: this.runId, callId: call!.id, decision, decidedBy });
    const prepared = this.deps.tools.prepare(call!);
    // An approved write finishes (or times out) even after a Stop: only the deadline cancels it.
    const context = this.batchContext(pending.index, done, this.writeSignal());
    const unrun = unrunRecord(resolution, call!, prepared, this.deps.tools, this.deps.policy);
    if (unrun) this.guards = settleCall(this.guards, unrun, context, false);
    else if (prepared.kind === "ready") this.guards = settleCall(this.guards, await runPrepared(prepared, context), context, true);
    return this.runCalls(pending.index, pending.startedAt, pending.text, rest, done, meta);
  }

  /** The person's messages, before the next model call: in the context as theirs, on the next step's record, in the trace. */
  add(messages: readonly AddedMessage[]): void {
    const step = this.steps.length + 1;
    for (const message of messages) {
      const note: AddedNote = { kind: message.kind, text: message.text };
      this.context.append({ role: "user", content: addedText(note) });
      this.taken.push(message.id);
      this.added.push(note);
      this.emit({ type: "message_added", runId: this.runId, step, note });
    }
  }

  /** Hands the tokens not reported yet to the usage check (a run stopping at a checkpoint for shutdown). */
  async reportUsage(): Promise<void> {
    if (this.meter.due) await this.meter.report();
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
      elapsedMs: this.cancellation.elapsedMs(),
      ...(this.pending ? { pending: this.pending } : {}),
      boundary: this.boundary,
      ...(this.taken.length > 0 ? { taken: this.taken } : {}),
      ...(this.added.length > 0 ? { added: this.added } : {}),
      ...(this.sources.length > 0 ? { sources: this.sources } : {}),
    };
  }

  /** The steps as the person should see them, including a step that waits for approval. */
  visibleSteps(): StepRecord[] {
    return withWaitingStep(this.steps, this.pending, now());
  }

  async finish(end: Exclude<StepEnd, { kind: "continue" }>): Promise<LoopResult> {
    this.cancellation.dispose();
    // A deleted question is answered by nobody: no model call for a summary nobody will read.
    const summary =
      end.kind !== "stop" ? undefined : end.stop.guard === "question_deleted" ? end.stop.sentence : await this.guardSummary(end.stop);
    const run = { runId: this.runId, steps: this.steps, visibleSteps: () => this.visibleSteps(), usage: this.usage };
    const outcome = outcomeOf(end, run, summary);
    if (this.meter.due) await this.meter.report();
    this.emit({ type: "final", runId: this.runId, outcome });
    return { outcome, state: this.snapshot() };
  }

  /** A guard stopped the run: the person still gets what it found, in a model call of its own (bounded). */
  private async guardSummary(stop: GuardStop): Promise<string> {
    this.emit({ type: "guard_tripped", runId: this.runId, stop });
    this.deps.logger.warn({ runId: this.runId, guard: stop.guard, detail: stop.detail }, "guard tripped");
    const summary = await summarize(
      {
        messages: this.context.messages,
        steps: this.steps,
        question: this.state.question,
        stop,
        budget: this.context.budget,
        boundary: this.boundary,
      },
      this.sideModel,
      this.deps.counter,
      stop.guard === "stopped" ? STOPPED_SUMMARY_MS : summaryTimeoutMs(this.deps.limits.runTimeoutMs, this.cancellation.remainingMs()),
    );
    this.usage = addUsage(this.usage, summary.usage);
    return summary.answer;
  }
}
