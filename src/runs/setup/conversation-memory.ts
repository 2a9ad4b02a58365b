// The conversation's memory around a run: what goes in (instructions, the channel's persona, the
// earlier turns, the thread as read now, the facts recalled) and what comes out after an answer
// (the turn in the history, new facts extracted outside the run's slot). Memory is a help, not a
// requirement: a store failure is logged and the run goes on.
import type { Logger } from "../../logger.js";
import type { Config } from "../../config.js";
import type { RunSettings } from "../../governance/channel-settings.js";
import type { RunPolicy } from "../../governance/run-policy.js";
import { extractFacts } from "../../memory/fact-extractor.js";
import { createConversationHistory } from "../../memory/history.js";
import { createLongTermMemory } from "../../memory/long-term-memory.js";
import { createWorkspaceConversations } from "../../memory/workspace-conversations.js";
import type { Fact, KeyValueStore } from "../../memory/types.js";
import { historyTokenBudget } from "../../agent/loop/loop-deps.js";
import { meteredModel } from "../../agent/models/metered-model.js";
import type { RunState } from "../../agent/loop/run-state.js";
import { runNote, stableInstructions } from "../../agent/context/system-prompt.js";
import { asData } from "../../agent/context/data-blocks.js";
import type { SourcedText } from "../../contracts/provenance.js";
import type { ChatMessage, Model, RunOutcome, TaskOrigin } from "../../contracts/types.js";
import type { TokenCounter } from "../../tokens/token-counter.js";
import { botNotes, type ContextLoaders } from "./context-loaders.js";
import type { RunFiles } from "./run-files.js";
import { STORE_RETRY, withRetries } from "../retry.js";
import { observeExtraUsage, type RunObserver } from "../worker/run-observer.js";
import type { Forgotten } from "../api/agent-service.js";
import type { Task } from "../api/task.js";
import { sharedTimeout } from "./shared-timeout.js";
import { reportingUsage } from "./usage-reporting-model.js";
import { within } from "../within.js";
import { readData, turnMessages, turnSources } from "./history-turns.js";

export interface ConversationMemoryDeps {
  readonly config: Config;
  /** Extracts the facts (the configured model, not a channel's own). */
  readonly model: Model;
  readonly store: KeyValueStore;
  readonly counter: TokenCounter;
  readonly contextLoaders: ContextLoaders;
  /** The conversation's stored files (forgotten with it) and the question's history line. */
  readonly files: RunFiles;
  readonly settingsOf: (origin: TaskOrigin) => RunSettings;
  readonly runPolicy?: RunPolicy;
  readonly observers: readonly RunObserver[];
  readonly logger: Logger;
  readonly clock: () => number;
}

/** What a new run starts from: the messages before its question, and the texts in them from others, with their sources. */
export interface StartContext {
  readonly messages: ChatMessage[];
  readonly sources: readonly SourcedText[];
}

export interface ConversationMemory {
  /**
   * The messages before the question, ordered for prompt caches: what is the same for every run of
   * the conversation first. What is not the requester's own is data under the run's `boundary`.
   */
  contextOf(task: Task, boundary: string): Promise<StartContext>;
  /** Writes after an answer: the turn (retried while the store is down, bounded), then facts in the background. Never rejects. */
  afterAnswer(state: RunState, outcome: Extract<RunOutcome, { status: "answered" }>): Promise<void>;
  facts(conversationKey: string): Promise<readonly Fact[]>;
  /** Clears the conversation's facts, history and files, once the answers showing in it now are written. */
  forget(conversationKey: string): Promise<Forgotten>;
  earlierTurns(conversationKey: string): Promise<number>;
  /** Drops the conversation's earlier turns (its facts stay); returns how many went. */
  startOver(conversationKey: string): Promise<number>;
  /** Called as an answer is about to show: a forget of the conversation waits until the returned release. */
  answering(conversationKey: string): () => void;
  /** Waits (bounded) for the fact extractions still running. */
  settle(timeoutMs: number): Promise<void>;
}

const FACT_EXTRACTION_TIMEOUT_MS = 30_000;

export function createConversationMemory(deps: ConversationMemoryDeps): ConversationMemory {
  const { config, model, store, counter, logger, clock, runPolicy, observers } = deps;
  const history = createConversationHistory(store, {
    maxTurns: config.memory.historyTurns,
    maxTokens: historyTokenBudget(config.guards, config.model.name, config.memory.historyTokens),
    countTokens: (text) => counter.countTextYielding(text),
    logger,
  });
  const memory = createLongTermMemory(store, { maxFacts: config.memory.maxFacts, logger, clock });
  const conversations = createWorkspaceConversations(store);
  const extractionTimeout = sharedTimeout(FACT_EXTRACTION_TIMEOUT_MS);
  const background = new Set<Promise<void>>();
  /** Answers showing now, by conversation, until their history is written: a forget waits for them. */
  const showing = new Map<string, Set<Promise<void>>>();

  /** Listed under its workspace as the run starts, before anything of it is kept: what a removed workspace has deleted. Never rejects. */
  function listed(origin: TaskOrigin): Promise<void> {
    const workspace = origin.scope?.workspace;
    if (!workspace) return Promise.resolve();
    return conversations
      .note(origin.surface, workspace, origin.conversationKey)
      .catch((error: unknown) =>
        logger.warn({ err: error, conversationKey: origin.conversationKey }, "could not list the conversation under its workspace"),
      );
  }

  async function contextOf(task: Task, boundary: string): Promise<StartContext> {
    const listing = listed(task.origin);
    const settings = deps.settingsOf(task.origin);
    // A run in the first second after the start waits for the tokenizer's sliced build instead of blocking on it.
    await counter.whenReady();
    const key = task.origin.conversationKey;
    // To the minute: every run in that minute (with the same facts) sends the same note, whose token count is then cached.
    const now = new Date(Math.floor(clock() / 60_000) * 60_000);
    const persona = settings.systemPrompt ? `\n\nInstructions for this channel (from the bot's settings):\n${settings.systemPrompt}` : "";
    const instructions: ChatMessage = { role: "system", content: stableInstructions(task.origin.surface) + persona };
    const asMessage = (line: SourcedText): ChatMessage => ({ role: "user", content: asData(line.text, line.source, boundary) });
    if (!settings.memory) {
      const [thread] = await Promise.all([deps.contextLoaders.load(task), listing]);
      const messages: ChatMessage[] = [
        instructions,
        ...botNotes(task),
        ...thread.map(asMessage),
        { role: "system", content: runNote({ facts: [], now, boundary }) },
      ];
      return { messages, sources: thread };
    }
    const [facts, turns, thread] = await Promise.all([
      memory.recall(key, task.text, config.memory.recallFacts).catch((error: unknown) => {
        logger.warn({ err: error, conversationKey: key }, "could not load remembered facts; answering without them");
        return [] as Fact[];
      }),
      history.load(key).catch((error: unknown) => {
        logger.warn({ err: error, conversationKey: key }, "could not load the conversation history; answering without it");
        return [];
      }),
      deps.contextLoaders.load(task),
      listing,
    ]);
    const messages: ChatMessage[] = [
      instructions,
      ...turns.flatMap((turn) => turnMessages(turn, task.origin.requester, boundary)),
      ...botNotes(task),
      ...thread.map(asMessage),
      { role: "system", content: runNote({ facts, now, boundary }) },
    ];
    const remembered: SourcedText[] = facts.map((fact) => ({ source: { kind: "memory" }, text: fact.text }));
    const earlier = turns.flatMap((turn) => turnSources(turn, task.origin.requester));
    return { messages, sources: [...earlier, ...thread, ...remembered] };
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

  async function afterAnswer(state: RunState, outcome: Extract<RunOutcome, { status: "answered" }>): Promise<void> {
    const key = state.origin.conversationKey;
    if (!deps.settingsOf(state.origin).memory) return;
    await withRetries(
      () =>
        history.append(key, {
          user: deps.files.historyQuestion(state),
          assistant: outcome.answer,
          at: clock(),
          asker: state.origin.requester,
          madeFromData: readData(state.messages, state.boundary),
        }),
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

  return {
    contextOf,
    afterAnswer,
    facts: (conversationKey) => memory.list(conversationKey),
    async forget(conversationKey) {
      // An answer still being written, or a fact still being extracted from it, would come back after the forget.
      await Promise.all(showing.get(conversationKey) ?? []);
      await Promise.allSettled([...background]);
      const turns = (await history.load(conversationKey)).length;
      const facts = await memory.forget(conversationKey);
      await history.clear(conversationKey);
      return { facts, turns, files: await deps.files.store.forget(conversationKey) };
    },
    earlierTurns: async (conversationKey) => (await history.load(conversationKey)).length,
    async startOver(conversationKey) {
      const turns = (await history.load(conversationKey)).length;
      await history.clear(conversationKey);
      return turns;
    },
    answering(conversationKey) {
      let release = () => {};
      const done = new Promise<void>((resolve) => (release = resolve));
      const held = showing.get(conversationKey) ?? new Set<Promise<void>>();
      showing.set(conversationKey, held.add(done));
      return () => {
        release();
        held.delete(done);
        if (held.size === 0) showing.delete(conversationKey);
      };
    },
    settle: (timeoutMs) => within(Promise.all(background), timeoutMs).then(() => undefined),
  };
}
