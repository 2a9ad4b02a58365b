// The service surfaces talk to, as wiring: the loop setups (src/runs/loop-setups.ts), the
// conversation memory around a run (conversation-memory.ts), the decisions protocol
// (decisions.ts), governance at decisions (decision-gate.ts) and the authority
// (src/governance/authority.ts) handed to the runner, which holds the durable part (intake,
// queue, checkpoints, approvals waiting and expiring).
import type { Logger } from "../logger.js";
import type { Config } from "../config.js";
import { parseStoreUrl } from "../memory/keyv-store.js";
import { createFeedbackBook } from "../memory/feedback.js";
import type { KeyValueStore } from "../memory/types.js";
import type { RunSettings } from "../governance/channel-settings.js";
import type { RunPolicy } from "../governance/run-policy.js";
import { approversFrom, createAuthority, type Authority } from "../governance/authority.js";
import { fixedSettings } from "../governance/settings-source.js";
import { warnAboutAllowedWrites } from "../agent/tools/policy-warnings.js";
import { approvalKeySource } from "./approval-key.js";
import { createApprovalStore } from "./approval-store.js";
import type { Model, PendingApproval, Surface, TaskOrigin, Tool } from "../contracts/types.js";
import { TokenCounter } from "../tokens/token-counter.js";
import { auditedSinks } from "./audited-sink.js";
import { createContextLoaders } from "./context-loaders.js";
import { createConversationMemory } from "./conversation-memory.js";
import { createDecisionGate } from "./decision-gate.js";
import { createDecisions } from "./decisions.js";
import { loggedFeedback } from "./feedback-log.js";
import { createLocalWorkQueue } from "./local-work-queue.js";
import { createLoopSetups } from "./loop-setups.js";
import { createPresenters } from "./presenters.js";
import { newRunId } from "./run-id.js";
import type { RunObserver } from "./run-observer.js";
import { createRunFiles } from "./run-files.js";
import { createRunStops } from "./run-stops.js";
import { createRunner } from "./runner.js";
import type { AgentService, SurfaceHooks } from "./service.js";
import type { ToolCatalog } from "../tools/tool-list.js";
import { createToolPolicy } from "../agent/tools/tool-policy.js";
import { toolListing } from "./tool-listing.js";
import type { WorkQueue } from "./work-queue.js";
import { within } from "./within.js";
import { createWriteLedger } from "./write-ledger.js";

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
  readonly toolCatalog?: () => ToolCatalog;
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

const OPEN_RUN: RunSettings = { memory: true, files: true, toolAllowed: () => true, toolRules: { allow: [], deny: [] } };

export function createAgentService(deps: AgentServiceDeps): RunningAgentService {
  const { config, model, store, logger, runPolicy } = deps;
  const observers = deps.observers ?? [];
  const clock = deps.clock ?? Date.now;
  const counter = TokenCounter.forModel(config.model.name);
  const queue = deps.queue ?? createLocalWorkQueue(logger);
  const ledger = createWriteLedger(store, logger, clock);
  const surfaces = new Map<Surface, SurfaceHooks>();
  const authority = deps.authority ?? createAuthority({ approvers: approversFrom(config), settings: fixedSettings() });
  const contextLoaders = createContextLoaders(logger);
  const approvals = createApprovalStore({ store, key: approvalKeySource(config, logger), logger, clock });
  const presenters = createPresenters();
  const files = createRunFiles(config, store, counter, logger);
  const settingsOf = (origin: TaskOrigin): RunSettings => runPolicy?.runSettings(origin) ?? OPEN_RUN;
  const toolPolicy = createToolPolicy(config.toolPolicy);
  const gate = createDecisionGate(runPolicy, clock);
  const upgrade = (origin: TaskOrigin) => surfaces.get(origin.surface)?.upgrade?.(origin) ?? { origin };

  const setups = createLoopSetups({
    ...deps,
    surfaceTools: (surface) => surfaces.get(surface)?.tools ?? [],
    settingsOf,
    ledger,
    files,
    counter,
    clock,
  });
  const memory = createConversationMemory({
    config,
    model,
    store,
    counter,
    contextLoaders,
    files,
    settingsOf,
    runPolicy,
    observers,
    logger,
    clock,
  });
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
    depsFor: (origin) => setups.for(origin),
    sinkFor: auditedSinks(runPolicy, (origin, name) => setups.isWrite(origin.surface, name)),
    buildContext: (task) => memory.contextOf(task),
    attachmentsFor: (task, runId, sink) => files.attachments(task, runId, sink, setups.for(task.origin), settingsOf(task.origin).files),
    async refusal(task) {
      if (!runPolicy || task.admitted) return undefined;
      const admission = await runPolicy.admit(task.origin);
      if (admission.kind !== "refused") return undefined;
      return { status: "answered", runId: newRunId(), answer: admission.text, steps: [], usage: { promptTokens: 0, completionTokens: 0 } };
    },
    gate,
    afterAnswer: (state, outcome) => memory.afterAnswer(state, outcome),
    answering: (conversationKey) => memory.answering(conversationKey),
    showsExpiry: (surface) => surfaces.get(surface)?.expired !== undefined,
    expired(surface, pending, outcome) {
      try {
        surfaces.get(surface)?.expired?.(pending, outcome);
      } catch (error) {
        logger.warn({ err: error }, "an approval expiry handler threw; ignored");
      }
    },
    upgrade,
  });
  // A surface with a presenter shows the rest of the run from whichever process runs it; otherwise, and for a person's
  // own run on a surface whose caller waits for its runs (the console's prompt), the caller waits for it here.
  const decide = createDecisions({
    approvals,
    authority,
    gate,
    upgrade,
    clock,
    resume(run, sink, reply) {
      const { origin } = run.state;
      const waited = surfaces.get(origin.surface)?.waitsForOwnRuns === true && origin.schedule === undefined;
      return runner.resume(run, presenters.has(origin.surface) && !waited ? undefined : sink, reply);
    },
  });

  return {
    // The runs.
    attach(surface, hooks) {
      warnAboutAllowedWrites(hooks.tools, config.toolPolicy, logger);
      surfaces.set(surface, hooks);
      if (hooks.present) presenters.register(surface, hooks.present, hooks.refuse);
      if (hooks.loadContext) contextLoaders.register(surface, hooks.loadContext);
      if (hooks.files) files.register(surface, hooks.files);
      setups.clear();
    },
    submit: (task, receipt) => runner.submit(task, receipt),
    ask: (task, sink) => runner.ask(task, sink),
    decide,
    stop(request) {
      const actor = { surface: request.surface, id: request.stoppedBy.id, roles: request.roles ?? [] };
      return stops.request(request.runId, request.stoppedBy, (requester) => authority.may("stop", actor, requester));
    },

    async waitingApprovals(conversationKey) {
      const found: PendingApproval[] = [];
      for (const entry of await approvals.waiting()) {
        const loaded = await approvals.load(entry.runId);
        if (loaded.kind !== "found" || loaded.run.state.origin.conversationKey !== conversationKey) continue;
        if ((await approvals.decisionOf(entry.runId, entry.callId)) === undefined) found.push(loaded.run.pending);
      }
      return found;
    },
    answerFile: (conversationKey, fileId) => files.answerFile(conversationKey, fileId),

    memory: { facts: memory.facts, forget: memory.forget, earlierTurns: memory.earlierTurns, startOver: memory.startOver },
    feedback: loggedFeedback(createFeedbackBook(store), logger),
    tools: {
      list: (surface, origin) =>
        toolListing({
          own: setups.toolsOf(surface),
          ...(deps.toolCatalog ? { catalog: deps.toolCatalog() } : {}),
          policy: toolPolicy,
          ...(origin ? { at: { origin, settings: settingsOf(origin) } } : {}),
        }),
    },

    // The lifecycle.
    async start() {
      runner.start();
      await runner
        .recover()
        .catch((error: unknown) =>
          logger.error({ err: error }, "could not take up the work an earlier process left; it waits for the next start"),
        );
    },
    sweepExpiredApprovals: () => runner.sweep(),
    async close(timeoutMs = 8_000) {
      const deadline = Date.now() + timeoutMs;
      await runner.close(timeoutMs);
      await memory.settle(Math.max(0, deadline - Date.now()));
      await within(stops.close(), Math.max(0, deadline - Date.now()));
      await files.close();
    },
  };
}
