// The conversation runner adapters talk to: serialises runs per conversation, loads memory
// into each run, pauses and resumes runs around approvals, and writes memory afterwards.
import { randomBytes } from "node:crypto";
import type { Logger } from "pino";
import type { Config } from "../config.js";
import { extractFacts } from "../memory/fact-extractor.js";
import { createConversationHistory } from "../memory/history.js";
import { createLongTermMemory } from "../memory/long-term-memory.js";
import { createRunQueue } from "../memory/run-queue.js";
import { acquireLease, type StoreLease } from "../memory/store-lease.js";
import type { Fact, KeyValueStore } from "../memory/types.js";
import { createApprovalStore, type ApprovalStore, type ClaimRecord, type StoredRun } from "./approval-store.js";
import { createLoopDeps } from "./loop-deps.js";
import { resumeAgent, runAgent, type LoopDeps, type LoopResult, type Resolution } from "./loop.js";
import type { AgentService, DecisionRequest, DecisionResult, ExpiryHandler, Task } from "./service.js";
import { buildSystemPrompt } from "./system-prompt.js";
import { TokenCounter } from "./token-counter.js";
import { builtinTools } from "./tools/builtin.js";
import type { ChatMessage, EventSink, Model, RunOutcome, Surface, TaskOrigin, Tool } from "./types.js";

export interface AgentServiceDeps {
  readonly config: Config;
  readonly model: Model;
  readonly store: KeyValueStore;
  readonly logger: Logger;
  readonly clock?: () => number;
}

export interface RunningAgentService extends AgentService {
  /** Ends every due approval with its summary; returns how many. Runs on a timer by itself. */
  sweepExpiredApprovals(): Promise<number>;
  /** Waits (bounded) for runs in flight, stops timers. Does not close the store. */
  close(timeoutMs?: number): Promise<void>;
}

const FACT_EXTRACTION_TIMEOUT_MS = 30_000;
const MAX_SWEEP_DELAY_MS = 60 * 60_000;
const SWEEP_RETRY_MS = 60_000;
/** A conversation's lease outlives the longest run by this much, for the writes after it. */
const LEASE_MARGIN_MS = 60_000;

const newRunId = () => randomBytes(6).toString("base64url");

export function createAgentService(deps: AgentServiceDeps): RunningAgentService {
  const { config, model, store, logger } = deps;
  const clock = deps.clock ?? Date.now;
  const counter = TokenCounter.forModel(config.model.name);
  const history = createConversationHistory(store, { maxTurns: config.memory.historyTurns, maxTokens: config.memory.historyTokens, countTokens: (text) => counter.countText(text), logger });
  const memory = createLongTermMemory(store, { maxFacts: config.memory.maxFacts, logger, clock });
  const queue = createRunQueue(config.maxConcurrentRuns);
  const surfaceTools = new Map<Surface, readonly Tool[]>();
  const loopDeps = new Map<Surface, LoopDeps>();
  const expiryHandlers = new Map<Surface, ExpiryHandler[]>();
  const approvals: Promise<ApprovalStore> = createApprovalStore({ store, secret: config.approvalSecret, logger, clock });
  let sweepTimer: NodeJS.Timeout | undefined;
  let sweepAt = 0;
  let closed = false;

  const depsFor = (surface: Surface): LoopDeps => {
    let found = loopDeps.get(surface);
    if (!found) {
      found = createLoopDeps({
        model,
        modelName: config.model.name,
        tools: [...builtinTools, ...(surfaceTools.get(surface) ?? [])],
        guards: config.guards,
        toolPolicy: config.toolPolicy,
        approvalTimeoutMs: config.approvalTimeoutMs,
        logger,
        clock,
        counter,
      });
      loopDeps.set(surface, found);
    }
    return found;
  };

  /** Memory is a help, not a requirement: a store failure here is logged and the run goes on. */
  async function buildContext(task: Task): Promise<ChatMessage[]> {
    const key = task.origin.conversationKey;
    const [facts, turns] = await Promise.all([
      memory.recall(key, task.text, config.memory.recallFacts).catch((error: unknown) => {
        logger.warn({ err: error, conversationKey: key }, "could not load remembered facts; answering without them");
        return [] as Fact[];
      }),
      history.load(key).catch((error: unknown) => {
        logger.warn({ err: error, conversationKey: key }, "could not load the conversation history; answering without it");
        return [];
      }),
    ]);
    return [
      { role: "system", content: buildSystemPrompt({ surface: task.origin.surface, facts, now: new Date(clock()) }) },
      ...turns.flatMap((turn): ChatMessage[] => [
        { role: "user", content: turn.user },
        { role: "assistant", content: turn.assistant },
      ]),
      ...(task.threadContext ?? []),
    ];
  }

  /** Keeps the sooner of the planned sweep and `at`: a later request must not put off an earlier expiry. */
  function scheduleSweep(at: number): void {
    if (closed || (sweepTimer !== undefined && sweepAt <= at)) return;
    clearTimeout(sweepTimer);
    sweepAt = at;
    const delay = Math.min(MAX_SWEEP_DELAY_MS, Math.max(0, at - clock()));
    sweepTimer = setTimeout(() => {
      sweepTimer = undefined;
      service.sweepExpiredApprovals().catch((error: unknown) => {
        logger.error({ err: error }, "sweeping expired approvals failed; trying again in a minute");
        scheduleSweep(clock() + SWEEP_RETRY_MS);
      });
    }, delay);
    sweepTimer.unref();
  }

  async function rememberFacts(origin: TaskOrigin, question: string, answer: string): Promise<void> {
    const key = origin.conversationKey;
    try {
      const known = (await memory.list(key)).map((fact) => fact.text);
      const facts = await extractFacts(model, { user: question, assistant: answer, known }, AbortSignal.timeout(FACT_EXTRACTION_TIMEOUT_MS), logger);
      if (facts.length > 0) {
        const result = await memory.remember(key, facts);
        logger.info({ conversationKey: key, ...result }, "long-term memory updated");
      }
    } catch (error) {
      logger.warn({ err: error, conversationKey: key }, "could not update long-term memory after the run");
    }
  }

  /** Stores what must outlive the run. Returns the outcome to show, which differs only when a pause could not be saved. */
  async function afterRun(result: LoopResult): Promise<RunOutcome> {
    const { outcome, state } = result;
    if (outcome.status === "paused") {
      try {
        await (await approvals).save({ state, pending: outcome.pending });
        scheduleSweep(outcome.pending.expiresAt);
        return outcome;
      } catch (error) {
        logger.error({ err: error, runId: outcome.runId }, "could not save a run waiting for approval");
        const tool = outcome.pending.tool;
        return {
          status: "answered",
          runId: outcome.runId,
          answer: `I need a person's approval to run ${tool}, but I could not save the request (the bot's store is unavailable), so ${tool} did not run. Please try again later.`,
          stop: { guard: "store_unavailable", detail: "the paused run could not be stored", sentence: `Stopped: ${tool} needs approval, but the request could not be saved, so it did not run.` },
          steps: outcome.steps,
          usage: outcome.usage,
        };
      }
    }
    const key = state.origin.conversationKey;
    await history.append(key, { user: state.question, assistant: outcome.answer, at: clock() }).catch((error: unknown) => {
      logger.warn({ err: error, conversationKey: key }, "could not save the turn to the conversation history");
    });
    // The reply is already out (see inTurn); this still runs in the conversation's turn, so the next run sees the facts.
    if (config.memory.extractFacts && outcome.stop?.guard !== "model_unavailable") await rememberFacts(state.origin, state.question, outcome.answer);
    return outcome;
  }

  /**
   * Runs `work` in the conversation's turn. An answer is handed back as soon as it exists; the
   * writes after it (history, memory) still finish before the conversation's next run starts.
   * A pause is handed back only once it is saved, so no click can arrive before its state.
   */
  function inTurn(conversationKey: string, work: () => Promise<LoopResult>): Promise<RunOutcome> {
    return new Promise<RunOutcome>((resolve, reject) => {
      queue
        .run(conversationKey, async () => {
          const lease = await conversationLease(conversationKey);
          try {
            const result = await work();
            if (result.outcome.status === "answered") resolve(result.outcome);
            resolve(await afterRun(result));
          } finally {
            await lease?.release();
          }
        })
        .catch(reject);
    });
  }

  /** Other bot processes on the same store take their turn too. A store that fails here does not block the run. */
  async function conversationLease(conversationKey: string): Promise<StoreLease | undefined> {
    const span = config.guards.runTimeoutMs + LEASE_MARGIN_MS;
    try {
      const lease = await acquireLease(store, `lease:conversation:${conversationKey}`, { ttlMs: span, waitMs: span });
      if (!lease) logger.warn({ conversationKey }, "another process kept this conversation busy too long; running anyway");
      return lease;
    } catch (error) {
      logger.warn({ err: error, conversationKey }, "could not take this conversation's turn in the store; running without it");
      return undefined;
    }
  }

  function resumeStored(run: StoredRun, resolution: Resolution, sink: EventSink): Promise<RunOutcome> {
    return inTurn(run.state.origin.conversationKey, async () => {
      const result = await resumeAgent(run.state, resolution, depsFor(run.state.origin.surface), sink);
      if (result.outcome.status !== "paused") {
        // The decision is already claimed, so a stale record can't run anything again; the answer must still go out.
        await (await approvals).remove(run.state.runId).catch((error: unknown) => logger.warn({ err: error, runId: run.state.runId }, "could not clear a finished approval request"));
      }
      return result;
    });
  }

  const EXPIRED: DecisionResult = { kind: "unknown", message: "This approval request expired, so nothing was run. Ask again if it is still needed." };

  /** Who decided this call before, if anyone did. */
  function priorDecision(existing: ClaimRecord | undefined): DecisionResult | undefined {
    if (!existing) return undefined;
    if (existing.decision === "expired" || !existing.decidedBy) return EXPIRED;
    return { kind: "already_decided", decision: existing.decision, decidedBy: existing.decidedBy };
  }

  const service: RunningAgentService = {
    registerSurfaceTools(surface, tools) {
      surfaceTools.set(surface, tools);
      loopDeps.delete(surface);
    },

    ask(task, sink) {
      return inTurn(task.origin.conversationKey, async () => {
        const context = await buildContext(task);
        return runAgent({ runId: newRunId(), origin: task.origin, question: task.text, context }, depsFor(task.origin.surface), sink);
      });
    },

    async decide(request: DecisionRequest, sink): Promise<DecisionResult> {
      const store = await approvals;
      const loaded = await store.load(request.runId);
      if (loaded.kind === "invalid") return { kind: "unknown", message: `This approval request can't be used: ${loaded.reason}. Nothing was run; ask again.` };
      if (loaded.kind === "missing" || loaded.run.pending.callId !== request.callId) {
        return (
          priorDecision(await store.decisionOf(request.runId, request.callId)) ?? {
            kind: "unknown",
            message: "This approval request is not known: it may have expired long ago or the bot's store was reset. Nothing was run; ask again.",
          }
        );
      }
      const { run } = loaded;
      if (request.decidedBy.id !== run.pending.requester.id && !request.isApprover) return { kind: "not_allowed", requester: run.pending.requester };
      const now = clock();
      if (now >= run.pending.expiresAt) {
        const claim = await store.claim(request.runId, request.callId, { decision: "expired" }, now);
        if (!claim.won) return priorDecision(claim.existing) ?? EXPIRED;
        return { kind: "expired", outcome: await resumeStored(run, { kind: "expired" }, sink) };
      }
      const claim = await store.claim(request.runId, request.callId, { decision: request.decision, decidedBy: request.decidedBy }, now);
      if (!claim.won) return priorDecision(claim.existing) ?? EXPIRED;
      const outcome = await resumeStored(run, { kind: "decided", decision: request.decision, decidedBy: request.decidedBy }, sink);
      return { kind: "resumed", decision: request.decision, outcome };
    },

    onApprovalExpired(surface, handler) {
      expiryHandlers.set(surface, [...(expiryHandlers.get(surface) ?? []), handler]);
    },

    rememberedFacts: (conversationKey) => memory.list(conversationKey),
    forget: (conversationKey) => memory.forget(conversationKey),

    async sweepExpiredApprovals() {
      const store = await approvals;
      const now = clock();
      let ended = 0;
      const waiting = await store.waiting();
      for (const entry of waiting.filter((item) => item.expiresAt <= now)) {
        const loaded = await store.load(entry.runId);
        if (loaded.kind !== "found") {
          await store.remove(entry.runId);
          continue;
        }
        // The run may have moved on to another approval since the list was read: that one has its own entry.
        if (loaded.run.pending.callId !== entry.callId) continue;
        const claim = await store.claim(entry.runId, entry.callId, { decision: "expired" }, now);
        if (!claim.won) continue;
        const outcome = await resumeStored(loaded.run, { kind: "expired" }, () => {});
        ended++;
        for (const handler of expiryHandlers.get(entry.surface) ?? []) {
          try {
            handler(loaded.run.pending, outcome);
          } catch (error) {
            logger.warn({ err: error }, "an approval expiry handler threw; ignored");
          }
        }
      }
      const next = (await store.waiting()).find((item) => item.expiresAt > now);
      if (next) scheduleSweep(next.expiresAt);
      return ended;
    },

    async close(timeoutMs = 8_000) {
      closed = true;
      clearTimeout(sweepTimer);
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([queue.idle(), new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
      clearTimeout(timer);
    },
  };

  // Approvals left waiting by an earlier process get their expiry timer again.
  void approvals
    .then((store) => store.waiting())
    .then((waiting) => {
      if (waiting[0]) scheduleSweep(waiting[0].expiresAt);
    })
    .catch((error: unknown) => logger.warn({ err: error }, "could not read the approvals waiting from an earlier run"));

  return service;
}
