// The service adapters talk to (api/agent-service.ts), as wiring: the surfaces attached here
// (surface-registry.ts), what a run is set up with (setup/: loop setups, conversation memory,
// files), the decisions protocol and governance at decisions (approvals/), all handed by name to
// the runner (worker/), which holds the durable part (intake, queue, checkpoints, approvals
// waiting and expiring).
import type { Logger } from "../../logger.js";
import type { Config } from "../../config.js";
import { parseStoreUrl } from "../../memory/keyv-store.js";
import { createFeedbackBook } from "../../memory/feedback.js";
import type { KeyValueStore } from "../../memory/types.js";
import type { RunSettings } from "../../governance/channel-settings.js";
import type { RunPolicy } from "../../governance/run-policy.js";
import { approversFrom, createAuthority, type Authority } from "../../governance/authority.js";
import { fixedSettings } from "../../governance/settings-source.js";
import { warnAboutAllowedWrites } from "../../agent/tools/policy-warnings.js";
import { approvalKeySource, type ApprovalKey } from "../approvals/approval-key.js";
import { connectionClaimOf, createApprovalStore } from "../approvals/approval-store.js";
import type { Model, PendingApproval, Surface, TaskOrigin, Tool } from "../../contracts/types.js";
import { TokenCounter } from "../../tokens/token-counter.js";
import { auditedSinks } from "../setup/audited-sink.js";
import { createContextLoaders } from "../setup/context-loaders.js";
import { createConversationMemory } from "../setup/conversation-memory.js";
import { createDecisionGate } from "../approvals/decision-gate.js";
import { createDecisions } from "../approvals/decisions.js";
import { createConnectionGrants, type ConnectionGrants } from "../approvals/connections.js";
import { loggedFeedback } from "./feedback-log.js";
import { createLocalWorkQueue } from "../queue/local-work-queue.js";
import { createLoopSetups } from "../setup/loop-setups.js";
import { createSurfaceRegistry } from "./surface-registry.js";
import { createRunSetup } from "../setup/run-setup.js";
import { createAdmission } from "../worker/admission.js";
import { withConnectUrl } from "../worker/connect-link.js";
import type { SlotShow } from "../api/presenting.js";
import type { RunObserver } from "../worker/run-observer.js";
import { createRunFiles } from "../setup/run-files.js";
import { createRunStops } from "../worker/run-stops.js";
import { createRunner } from "../worker/runner.js";
import { questionChangedDraft } from "../../governance/audit-events.js";
import { intakeIdFor } from "../intake/intake-store.js";
import type { AgentService, ServiceConnections } from "../api/agent-service.js";
import type { ToolCatalog } from "../../tools/tool-list.js";
import { createToolPolicy } from "../../agent/tools/tool-policy.js";
import { toolListing } from "./tool-listing.js";
import type { WorkQueue } from "../queue/work-queue.js";
import { within } from "../within.js";
import { createWriteLedger } from "../worker/write-ledger.js";
import { createFormStore } from "../forms/form-store.js";
import { createPersonForms } from "../forms/person-forms.js";
import { createFormAnswers } from "../forms/form-answers.js";
import { createIntakeStore } from "../intake/intake-store.js";
import { endWorkspaceRuns, type EndedRuns } from "./workspace-runs.js";
import { heldAnswerChoices, heldAnswerPort } from "./held-answer-port.js";

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
  /** Watch every run this process drives (metrics, traces); see src/runs/worker/run-observer.ts. */
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
  /** How a schedule's slot run is shown (the schedules engine's); without schedules in the process, as any other run. */
  readonly showSlot?: SlotShow;
  /** The key that signs paused runs (made here from the config when not given), shared with what else signs or seals. */
  readonly approvalKey?: ApprovalKey;
  /** The private Connect link of a run that waits for its requester to connect an MCP server (MCP servers behind OAuth). */
  readonly connectLink?: (pending: PendingApproval) => Promise<string>;
  /** People's connections to MCP servers behind OAuth, for `/connections`. */
  readonly connections?: ServiceConnections;
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
  /** Runs waiting for their requester to connect an MCP server: checked and resumed from the OAuth callback. */
  readonly connectionGrants: ConnectionGrants;
  /** The workspaces removed the bot: their queued and paused runs end, shown nowhere (workspace-runs.ts). */
  endWorkspaceRuns(surface: Surface, workspaces: readonly string[]): Promise<EndedRuns>;
  /** Deletes the message records of these runs (their workspace's data goes). Rejects when the store fails. */
  forgetMessages(runIds: readonly string[]): Promise<void>;
}

const OPEN_RUN: RunSettings = {
  memory: true,
  files: true,
  threadFollowUps: true,
  toolAllowed: () => true,
  toolRules: { allow: [], deny: [] },
};

export function createAgentService(deps: AgentServiceDeps): RunningAgentService {
  const { config, model, store, logger, runPolicy } = deps;
  const observers = deps.observers ?? [];
  const clock = deps.clock ?? Date.now;
  const counter = TokenCounter.forModel(config.model.name);
  const queue = deps.queue ?? createLocalWorkQueue(logger);
  const ledger = createWriteLedger(store, logger, clock);
  const surfaces = createSurfaceRegistry(logger, deps.showSlot);
  const authority = deps.authority ?? createAuthority({ approvers: approversFrom(config), settings: fixedSettings() });
  const contextLoaders = createContextLoaders(logger);
  const intake = createIntakeStore(store);
  const approvals = createApprovalStore({ store, key: deps.approvalKey ?? approvalKeySource(config, logger), logger, clock });
  const files = createRunFiles(config, store, counter, logger);
  const settingsOf = (origin: TaskOrigin): RunSettings => runPolicy?.runSettings(origin) ?? OPEN_RUN;
  const toolPolicy = createToolPolicy(config.toolPolicy);
  const gate = createDecisionGate(runPolicy, clock);
  // A server's question waits in the store for its requester's answer, from whichever process takes it.
  const formStore = createFormStore(store, clock);
  const personForms = createPersonForms({ forms: formStore, timeoutMs: config.mcpElicitationTimeoutMs, logger, clock });
  const forms = createFormAnswers({ forms: formStore, clock, notify: (formId) => personForms.notify(formId) });
  const holds = heldAnswerPort({
    mode: config.crossChannelReads,
    store,
    surfaces,
    ...(runPolicy ? { audit: (draft) => runPolicy.observer.record(draft) } : {}),
    logger,
    clock,
  });

  const setups = createLoopSetups({
    ...deps,
    forms: personForms,
    surfaceTools: (surface) => surfaces.tools(surface),
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
    store,
    approvals,
    ledger,
    queue,
    concurrency: config.maxConcurrentRuns,
    shows: surfaces,
    setup: createRunSetup({
      setups,
      sinkFor: auditedSinks(runPolicy, (origin, name) => setups.isWrite(origin.surface, name)),
      memory,
      files,
      settingsOf,
    }),
    memory,
    admission: createAdmission(runPolicy),
    conversations: {
      debounceMs: config.conversations.messageDebounceMs,
      policyFor: (origin) => settingsOf(origin).concurrentMessages ?? config.conversations.concurrentMessages,
    },
    gate,
    stops,
    observers,
    logger,
    clock,
    ...(deps.connectLink ? { connectLink: deps.connectLink } : {}),
    holds,
  });
  const connectionGrants = createConnectionGrants({
    approvals,
    clock,
    resume: (run) => runner.resume(run),
    onError: (error, grant) => logger.error({ err: error, runId: grant.runId }, "could not resume a run after its connection"),
  });
  // A surface with a presenter shows the rest of the run from whichever process runs it; otherwise the caller waits for it here.
  const decide = createDecisions({
    approvals,
    authority,
    gate,
    upgrade: surfaces.upgrade,
    clock,
    resume: (run, sink, reply) => runner.resume(run, surfaces.presentsDecided(run.state.origin) ? undefined : sink, reply),
  });

  return {
    // The runs.
    attach(surface, hooks) {
      warnAboutAllowedWrites(hooks.tools, config.toolPolicy, logger);
      surfaces.attach(surface, hooks);
      if (hooks.loadContext) contextLoaders.register(surface, hooks.loadContext);
      if (hooks.files) files.register(surface, hooks.files);
      setups.clear();
    },
    submit: (task, receipt) => runner.submit(task, receipt),
    async edit(request) {
      const result = await runner.edit(request);
      const { origin } = request.task;
      if (result.kind !== "ignored")
        runPolicy?.observer.record(
          questionChangedDraft("question_edited", intakeIdFor(origin.surface, request.receipt), origin, result.kind),
        );
      return result;
    },
    async deleteQuestion(request) {
      const result = await runner.deletion(request, config.conversations.deleteAnswersWithQuestion);
      if (result.kind !== "ignored")
        runPolicy?.observer.record(questionChangedDraft("question_deleted", result.runId, result.origin, result.kind));
      return result;
    },
    ask: (task, sink) => runner.ask(task, sink),
    decide,
    forms,
    heldAnswers: heldAnswerChoices(holds),
    stop(request) {
      const { surface, workspace } = request;
      const actor = {
        surface,
        ...(workspace ? { workspace } : {}),
        id: request.stoppedBy.id,
        roles: request.roles ?? [],
        ...(request.workspaceAdmin ? { workspaceAdmin: true } : {}),
      };
      return stops.request(request.runId, request.stoppedBy, (requester) => authority.may("stop", actor, requester));
    },

    async waitingApprovals(conversationKey) {
      const found: PendingApproval[] = [];
      for (const entry of await approvals.waiting()) {
        const loaded = await approvals.load(entry.runId);
        if (loaded.kind !== "found" || loaded.run.state.origin.conversationKey !== conversationKey) continue;
        const claimedAs = loaded.run.pending.connect ? connectionClaimOf(entry.callId) : entry.callId;
        // A record keeps no Connect link: the one shown now is made anew.
        if ((await approvals.decisionOf(entry.runId, claimedAs)) === undefined)
          found.push(await withConnectUrl(loaded.run.pending, deps.connectLink, logger));
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
    connectionGrants,
    endWorkspaceRuns: (surface, workspaces) => endWorkspaceRuns({ intake, approvals }, surface, workspaces),
    async forgetMessages(runIds) {
      for (const runId of runIds) await intake.erase(runId);
    },
    ...(deps.connections ? { connections: deps.connections } : {}),
    async close(timeoutMs = 8_000) {
      const deadline = Date.now() + timeoutMs;
      await runner.close(timeoutMs);
      await memory.settle(Math.max(0, deadline - Date.now()));
      await within(stops.close(), Math.max(0, deadline - Date.now()));
      await files.close();
    },
  };
}
