// The service surfaces talk to: builds each run's loop setup (tools, channel settings, audit),
// its context (memory) and the writes after it, and hands the durable part (intake, queue,
// checkpoints, approvals waiting and expiring) to the runner in src/runs.
import { newRunId } from "./run-id.js";
import type { Logger } from "pino";
import type { Config } from "../config.js";
import { extractFacts } from "../memory/fact-extractor.js";
import { createConversationHistory } from "../memory/history.js";
import { createLongTermMemory } from "../memory/long-term-memory.js";
import { parseStoreUrl } from "../memory/keyv-store.js";
import type { Fact, KeyValueStore } from "../memory/types.js";
import type { RunSettings } from "../governance/channel-settings.js";
import type { RunPolicy } from "../governance/run-policy.js";
import { approversFrom, createAuthority, type Authority } from "../governance/authority.js";
import { fixedSettings } from "../governance/settings-source.js";
import { within } from "./within.js";
import { sharedTimeout } from "./shared-timeout.js";
import { createLocalWorkQueue } from "./local-work-queue.js";
import { createPresenters } from "./presenters.js";
import { STORE_RETRY, withRetries } from "./retry.js";
import { observeExtraUsage, type RunObserver } from "./run-observer.js";
import { reportingUsage } from "./usage-reporting-model.js";
import { createRunner, type Resumed } from "./runner.js";
import { createRunStops } from "./run-stops.js";
import { createFeedbackBook, type FeedbackBook } from "../memory/feedback.js";
import type { WorkQueue } from "./work-queue.js";
import { createWriteLedger } from "./write-ledger.js";
import { warnAboutAllowedWrites } from "../agent/allowed-writes.js";
import { meteredModel } from "../agent/metered-model.js";
import { approvalKeySource } from "../agent/approval-key.js";
import { createApprovalStore, type ClaimRecord, type StoredRun } from "../agent/approval-store.js";
import { createContextLoaders } from "./context-loaders.js";
import { createLoopDeps, historyTokenBudget } from "../agent/loop-deps.js";
import type { LoopDeps } from "../agent/loop.js";
import type { RunState } from "../agent/run-state.js";
import type { AgentService, DecisionRequest, DecisionResult, ReplyHandle, SurfaceHooks, Task, ToolList, ToolListing } from "./service.js";
import { runNote, stableInstructions } from "../agent/system-prompt.js";
import { TokenCounter } from "../tokens/token-counter.js";
import { builtinTools } from "../agent/tools/builtin.js";
import type { ChatMessage, EventSink, Model, RunOutcome, Surface, TaskOrigin, Tool } from "../agent/types.js";

export interface AgentServiceDeps {
  readonly config: Config;
  readonly model: Model;
  readonly store: KeyValueStore;
  readonly logger: Logger;
  readonly clock?: () => number;
  /** Access, limits, per-channel settings and the audit log (the settings file); none: everyone, everywhere, no limits. */
  readonly runPolicy?: RunPolicy;
  /** The model client for a channel's `model` setting; without it every channel uses `model`. */
  readonly modelFor?: (name: string) => Model;
  /** Watch every run this process drives (metrics, traces); see src/runs/run-observer.ts. */
  readonly observers?: readonly RunObserver[];
  /** Tools that come and go (the MCP servers that are up), read before each model call; same array until they changed. */
  readonly toolSource?: () => readonly Tool[];
  /** Every MCP tool with its server and whether that server is up, and every MCP server with its state, for `/tools`. */
  readonly toolCatalog?: () => ToolList;
  /** Where accepted work waits for a worker; default in-process (one bot process on SQLite). */
  readonly queue?: WorkQueue;
  /** Who may decide and stop runs; default: the requester and the approvers of the environment. */
  readonly authority?: Authority;
  /** The process's own tools beyond the built-in ones, on every surface (create_schedule). */
  readonly tools?: readonly Tool[];
}

export interface RunningAgentService extends AgentService {
  /** Ends every due approval with its summary now; returns how many. Expiry items do it by themselves. */
  sweepExpiredApprovals(): Promise<number>;
  /**
   * Starts the queue's workers, then takes up what an earlier process left unfinished (messages,
   * checkpoints, approvals). Call once, after every surface is attached: nothing queued runs
   * before it, so no item is taken while its outcome has nowhere to be shown. Never rejects.
   */
  start(): Promise<void>;
  /** Starts no more queued work; runs in flight stop at their next checkpoint (bounded) to be continued by the next start. Does not close the store. */
  close(timeoutMs?: number): Promise<void>;
}

const FACT_EXTRACTION_TIMEOUT_MS = 30_000;
const NOT_QUEUED_NOTE =
  "Your decision is recorded, but the bot could not go on with the request just now (its work queue is unavailable). It goes on by itself as soon as it can: no need to click again.";
const extractionTimeout = sharedTimeout(FACT_EXTRACTION_TIMEOUT_MS);

/** Distinct channel setups kept built at once; more are rebuilt on demand. */
const MAX_LOOP_SETUPS = 64;
const OPEN_RUN: RunSettings = { memory: true, toolAllowed: () => true, toolRules: { allow: [], deny: [] } };

export function createAgentService(deps: AgentServiceDeps): RunningAgentService {
  const { config, model, store, logger } = deps;
  const observers = deps.observers ?? [];
  const clock = deps.clock ?? Date.now;
  const counter = TokenCounter.forModel(config.model.name);
  const history = createConversationHistory(store, {
    maxTurns: config.memory.historyTurns,
    maxTokens: historyTokenBudget(config.guards, config.model.name, config.memory.historyTokens),
    countTokens: (text) => counter.countTextYielding(text),
    logger,
  });
  const memory = createLongTermMemory(store, { maxFacts: config.memory.maxFacts, logger, clock });
  const queue = deps.queue ?? createLocalWorkQueue(logger);
  const ledger = createWriteLedger(store, logger, clock);
  const background = new Set<Promise<void>>();
  const surfaces = new Map<Surface, SurfaceHooks>();
  const loopDeps = new Map<string, LoopDeps>();
  const authority = deps.authority ?? createAuthority({ approvers: approversFrom(config), settings: fixedSettings() });
  const contextLoaders = createContextLoaders(logger);
  const approvals = createApprovalStore({ store, key: approvalKeySource(config, logger), logger, clock });

  const { runPolicy } = deps;
  const counters = new Map<string, TokenCounter>([[config.model.name, counter]]);
  const counterFor = (name: string) => counters.get(name) ?? counters.set(name, TokenCounter.forModel(name)).get(name)!;
  // Every write goes through the ledger: it runs at most once, also across a crash.
  const toolsOf = (surface: Surface) =>
    [...builtinTools, ...(deps.tools ?? []), ...(surfaces.get(surface)?.tools ?? [])].map((tool) => ledger.guard(tool));
  const settingsOf = (origin: TaskOrigin): RunSettings => runPolicy?.runSettings(origin) ?? OPEN_RUN;
  const usageCheck: LoopDeps["usageCheck"] = runPolicy ? (run, tokens) => runPolicy.recordUsage(run.origin, tokens) : undefined;

  /** The MCP tools a channel may use, as a source that keeps its array until the servers' tools change. */
  const dynamicTools = (settings: RunSettings): (() => readonly Tool[]) | undefined => {
    const source = deps.toolSource;
    if (!source) return undefined;
    let seen: readonly Tool[] | undefined;
    let allowed: readonly Tool[] = [];
    return () => {
      const current = source();
      if (current !== seen) {
        seen = current;
        allowed = current.filter((tool) => settings.toolAllowed(tool.name)).map((tool) => ledger.guard(tool));
      }
      return allowed;
    };
  };

  /** One loop setup per surface and channel setup (model, steps, tools offered), built on first use. */
  const depsFor = (origin: TaskOrigin): LoopDeps => {
    const settings = settingsOf(origin);
    const tools = toolsOf(origin.surface).filter((tool) => settings.toolAllowed(tool.name) && (tool.availableTo?.(origin) ?? true));
    const modelName = settings.model !== undefined && deps.modelFor ? settings.model : config.model.name;
    const key = JSON.stringify([origin.surface, modelName, settings.maxSteps, tools.map((tool) => tool.name), settings.toolRules]);
    let found = loopDeps.get(key);
    if (!found) {
      if (loopDeps.size >= MAX_LOOP_SETUPS) loopDeps.clear();
      // A channel's own model gets its own window from the model table; AGENT_CONTEXT_TOKENS describes OPENAI_MODEL.
      const guards = modelName === config.model.name ? config.guards : { ...config.guards, contextTokens: undefined };
      found = createLoopDeps({
        model: modelName === config.model.name || !deps.modelFor ? model : deps.modelFor(modelName),
        modelName,
        tools,
        toolSource: dynamicTools(settings),
        guards: settings.maxSteps === undefined ? guards : { ...guards, maxSteps: settings.maxSteps },
        toolPolicy: config.toolPolicy,
        approvalTimeoutMs: config.approvalTimeoutMs,
        logger,
        clock,
        counter: counterFor(modelName),
      });
      if (usageCheck) found = { ...found, usageCheck };
      loopDeps.set(key, found);
    }
    return found;
  };

  /** The run's events also go to the audit log (approvals, decisions, expiry, writes). */
  const audited = (origin: TaskOrigin, sink: EventSink, waitingTool?: string): EventSink => {
    if (!runPolicy) return sink;
    const isWrite = (name: string) =>
      [...toolsOf(origin.surface), ...(deps.toolSource?.() ?? [])].some((tool) => tool.name === name && tool.effect === "write");
    const audit = runPolicy.auditSink({ origin, isWrite, ...(waitingTool ? { waitingTool } : {}) });
    return (event) => {
      audit(event);
      sink(event);
    };
  };

  /**
   * Memory is a help, not a requirement: a store failure here is logged and the run goes on.
   * Ordered for prompt caches: what is the same for every run of the conversation comes first
   * (instructions, surface style, the channel's persona; the history), then what is not (the
   * thread as read now, the time, the facts recalled); the loop appends the question.
   */
  async function buildContext(task: Task, settings: RunSettings): Promise<ChatMessage[]> {
    // A run in the first second after the start waits for the tokenizer's sliced build instead of blocking on it.
    await counter.whenReady();
    const key = task.origin.conversationKey;
    // To the minute: every run in that minute (with the same facts) sends the same note, whose token count is then cached.
    const now = new Date(Math.floor(clock() / 60_000) * 60_000);
    const persona = settings.systemPrompt ? `\n\nInstructions for this channel (from the bot's settings):\n${settings.systemPrompt}` : "";
    const instructions: ChatMessage = { role: "system", content: stableInstructions(task.origin.surface) + persona };
    if (!settings.memory)
      return [instructions, ...(await contextLoaders.load(task)), { role: "system", content: runNote({ facts: [], now }) }];
    const [facts, turns, thread] = await Promise.all([
      memory.recall(key, task.text, config.memory.recallFacts).catch((error: unknown) => {
        logger.warn({ err: error, conversationKey: key }, "could not load remembered facts; answering without them");
        return [] as Fact[];
      }),
      history.load(key).catch((error: unknown) => {
        logger.warn({ err: error, conversationKey: key }, "could not load the conversation history; answering without it");
        return [];
      }),
      contextLoaders.load(task),
    ]);
    return [
      instructions,
      ...turns.flatMap((turn): ChatMessage[] => [
        { role: "user", content: turn.user },
        { role: "assistant", content: turn.assistant },
      ]),
      ...thread,
      { role: "system", content: runNote({ facts, now }) },
    ];
  }

  async function rememberFacts(runId: string, origin: TaskOrigin, question: string, answer: string): Promise<void> {
    const key = origin.conversationKey;
    try {
      const known = (await memory.list(key)).map((fact) => fact.text);
      // The extraction's tokens count in the daily limits like the run's own, and the observers see them (run records, usage).
      let used = 0;
      const reported =
        observers.length === 0
          ? model
          : reportingUsage(model, (usage) =>
              observeExtraUsage(observers, logger, runId, origin, { kind: "facts", model: model.name, usage }),
            );
      const extractor = runPolicy ? meteredModel(reported, counter, (tokens) => (used += tokens)) : reported;
      const facts = await extractFacts(extractor, { user: question, assistant: answer, known }, extractionTimeout(), logger);
      if (used > 0) await runPolicy?.recordUsage(origin, used);
      if (facts.length > 0) {
        // Facts found are not dropped because the store blinked: the write is retried (bounded).
        const result = await withRetries(
          () => memory.remember(key, facts),
          STORE_RETRY,
          (error, attempt) => logger.warn({ err: error, conversationKey: key, attempt }, "could not save remembered facts; trying again"),
        );
        logger.info({ conversationKey: key, ...result }, "long-term memory updated");
      }
    } catch (error) {
      logger.warn({ err: error, conversationKey: key }, "could not update long-term memory after the run");
    }
  }

  /** Writes after an answer: history is retried while the store is down (bounded); facts are extracted outside the run's slot. */
  async function afterAnswer(state: RunState, outcome: Extract<RunOutcome, { status: "answered" }>): Promise<void> {
    const key = state.origin.conversationKey;
    if (!settingsOf(state.origin).memory) return;
    await withRetries(
      () => history.append(key, { user: state.question, assistant: outcome.answer, at: clock() }),
      STORE_RETRY,
      (error, attempt) =>
        logger.warn({ err: error, conversationKey: key, attempt }, "could not save the turn to the conversation history; trying again"),
    ).catch((error: unknown) =>
      logger.error({ err: error, conversationKey: key }, "could not save the turn to the conversation history; gave up"),
    );
    if (!config.memory.extractFacts || outcome.stop?.guard === "model_unavailable") return;
    const extraction = rememberFacts(state.runId, state.origin, state.question, outcome.answer).finally(() =>
      background.delete(extraction),
    );
    background.add(extraction);
  }

  const presenters = createPresenters();
  // A stop request outlives the longest run, so a process that polls late still sees it.
  // Only on Redis can a Stop click land on another process than the run's (one process owns an SQLite file).
  const stops = createRunStops({
    store,
    shared: parseStoreUrl(config.storeUrl).kind === "redis",
    logger,
    ttlMs: config.guards.runTimeoutMs + 60_000,
  });
  const runner = createRunner({
    stops,
    store,
    queue,
    concurrency: config.maxConcurrentRuns,
    presenters,
    approvals: () => approvals,
    ledger,
    logger,
    clock,
    observers,
    depsFor,
    sinkFor: audited,
    buildContext: (task) => buildContext(task, settingsOf(task.origin)),
    async refusal(task) {
      if (!runPolicy || task.admitted) return undefined;
      const admission = await runPolicy.admit(task.origin);
      if (admission.kind !== "refused") return undefined;
      return { status: "answered", runId: newRunId(), answer: admission.text, steps: [], usage: { promptTokens: 0, completionTokens: 0 } };
    },
    afterAnswer,
    showsExpiry: (surface) => surfaces.get(surface)?.expired !== undefined,
    expired(surface, pending, outcome) {
      try {
        surfaces.get(surface)?.expired?.(pending, outcome);
      } catch (error) {
        logger.warn({ err: error }, "an approval expiry handler threw; ignored");
      }
    },
    upgrade: (origin) => surfaces.get(origin.surface)?.upgrade?.(origin) ?? { origin },
  });

  const EXPIRED: DecisionResult = {
    kind: "unknown",
    message: "This approval request expired, so nothing was run. Ask again if it is still needed.",
  };

  /** Who decided this call before, if anyone did. */
  function priorDecision(existing: ClaimRecord | undefined): DecisionResult | undefined {
    if (!existing) return undefined;
    if (existing.decision === "expired" || !existing.decidedBy) return EXPIRED;
    return { kind: "already_decided", decision: existing.decision, decidedBy: existing.decidedBy };
  }

  /**
   * Queues the resume of a decision this call claimed. A surface with a presenter shows the rest
   * of the run from whichever process runs it; otherwise (the console) the caller waits for it here.
   */
  function resumeQueued(run: StoredRun, sink: EventSink, reply?: ReplyHandle): Promise<Resumed> {
    return runner.resume(run, presenters.has(run.state.origin.surface) ? undefined : sink, reply);
  }

  const service: RunningAgentService = {
    attach(surface, hooks) {
      warnAboutAllowedWrites(hooks.tools, config.toolPolicy, logger);
      surfaces.set(surface, hooks);
      if (hooks.present) presenters.register(surface, hooks.present, hooks.refuse);
      if (hooks.loadContext) contextLoaders.register(surface, hooks.loadContext);
      loopDeps.clear();
    },

    submit: (task, receipt) => runner.submit(task, receipt),

    ask: (task, sink) => runner.ask(task, sink),

    async decide(request: DecisionRequest, sink): Promise<DecisionResult> {
      const store = approvals;
      const loaded = await store.load(request.runId);
      if (loaded.kind === "invalid")
        return { kind: "unknown", message: `This approval request can't be used: ${loaded.reason}. Nothing was run; ask again.` };
      if (loaded.kind === "missing" || loaded.run.pending.callId !== request.callId) {
        return (
          priorDecision(await store.decisionOf(request.runId, request.callId)) ?? {
            kind: "unknown",
            message:
              "This approval request is not known: it may have expired long ago or the bot's store was reset. Nothing was run; ask again.",
          }
        );
      }
      const { run } = loaded;
      const actor = { surface: run.state.origin.surface, id: request.decidedBy.id, roles: request.roles ?? [] };
      if (!authority.may("decide", actor, run.pending.requester)) return { kind: "not_allowed", requester: run.pending.requester };
      const now = clock();
      if (now >= run.pending.expiresAt) {
        const claim = await store.claim(request.runId, request.callId, { decision: "expired" }, now);
        if (!claim.won) return priorDecision(claim.existing) ?? EXPIRED;
        const { outcome } = await resumeQueued(run, sink, request.reply);
        return outcome ? { kind: "expired", outcome } : { kind: "expired" };
      }
      // Claimed before it is applied: a crash in between is finished by the next start or the expiry item, never stranded.
      const claim = await store.claim(request.runId, request.callId, { decision: request.decision, decidedBy: request.decidedBy }, now);
      if (!claim.won) return priorDecision(claim.existing) ?? EXPIRED;
      const { queued, outcome } = await resumeQueued(run, sink, request.reply);
      return { kind: "resumed", decision: request.decision, ...(outcome ? { outcome } : {}), ...(queued ? {} : { note: NOT_QUEUED_NOTE }) };
    },

    toolList(surface) {
      const own: ToolListing[] = toolsOf(surface).map((tool) => ({ name: tool.name, effect: tool.effect, up: true }));
      const mcp = deps.toolCatalog?.() ?? { tools: [], servers: [] };
      return { tools: [...own, ...mcp.tools], servers: mcp.servers };
    },

    rememberedFacts: (conversationKey) => memory.list(conversationKey),
    forget: (conversationKey) => memory.forget(conversationKey),

    sweepExpiredApprovals: () => runner.sweep(),

    async start() {
      runner.start();
      await runner
        .recover()
        .catch((error: unknown) =>
          logger.error({ err: error }, "could not take up the work an earlier process left; it waits for the next start"),
        );
    },

    stop: (request) => {
      const actor = { surface: request.surface, id: request.stoppedBy.id, roles: request.roles ?? [] };
      return stops.request(request.runId, request.stoppedBy, (requester) => authority.may("stop", actor, requester));
    },
    feedback: loggedFeedback(createFeedbackBook(store), logger),

    async close(timeoutMs = 8_000) {
      const deadline = Date.now() + timeoutMs;
      await runner.close(timeoutMs);
      await within(Promise.all(background), Math.max(0, deadline - Date.now()));
      await within(stops.close(), Math.max(0, deadline - Date.now()));
    },
  };

  return service;
}

/** Every vote goes to the log with the running totals, so the counts show without a dashboard. */
function loggedFeedback(book: FeedbackBook, logger: Logger): FeedbackBook {
  return {
    ...book,
    async record(vote) {
      const recorded = await book.record(vote);
      logger.info(
        {
          runId: vote.runId,
          conversationKey: vote.conversationKey,
          person: vote.person.id,
          rating: vote.rating,
          guard: vote.guard,
          feedback: recorded.totals,
        },
        "feedback",
      );
      return recorded;
    },
  };
}
