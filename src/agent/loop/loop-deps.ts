// Builds what the loop needs from the configuration, in one place for the service, the
// console, tests and benchmarks.
import { checkContextWindow, type GuardLimits, type ToolPolicyRule } from "../../config.js";
import { silentLogger, type Logger } from "../../logger.js";
import type { LoopDeps } from "./loop-types.js";
import type { UntrustedWritesMode } from "../context/untrusted-writes.js";
import { defaultContextWindow, TokenCounter } from "../../tokens/token-counter.js";
import { ToolRegistry, type RegistryOptions } from "../tools/tool-registry.js";
import { createToolPolicy } from "../tools/tool-policy.js";
import type { Model, Tool } from "../../contracts/types.js";

/** One tool result may take at most this share of the usable context, whatever the cap says. */
const OBSERVATION_SHARE_OF_BUDGET = 0.2;
/** Earlier turns may take at most this share of the usable context, whatever MEMORY_HISTORY_TOKENS says. */
const HISTORY_SHARE_OF_BUDGET = 0.25;

/** AGENT_CONTEXT_TOKENS, else the model's own window from the table. */
export function contextWindowOf(guards: GuardLimits, modelName: string): number {
  return guards.contextTokens ?? defaultContextWindow(modelName);
}

/** The tokens the conversation's earlier turns may take: MEMORY_HISTORY_TOKENS, scaled down for small windows. */
export function historyTokenBudget(guards: GuardLimits, modelName: string, configuredTokens: number): number {
  const budget = contextWindowOf(guards, modelName) - guards.reservedOutputTokens;
  return Math.max(1, Math.min(configuredTokens, Math.floor(budget * HISTORY_SHARE_OF_BUDGET)));
}

/** A tool result's cap in tokens for this model: AGENT_OBSERVATION_TOKENS, scaled down for small windows. */
export function observationTokenCap(guards: GuardLimits, modelName: string): number {
  const budget = contextWindowOf(guards, modelName) - guards.reservedOutputTokens;
  return Math.max(1, Math.min(guards.observationTokens, Math.floor(budget * OBSERVATION_SHARE_OF_BUDGET)));
}

export interface LoopSetup {
  readonly model: Model;
  /** Decides the tokenizer and the default context window. */
  readonly modelName: string;
  readonly tools: readonly Tool[];
  /** Tools that come and go (MCP servers), read before each model call; same array until they changed. */
  readonly toolSource?: () => readonly Tool[];
  readonly guards: GuardLimits;
  readonly toolPolicy?: readonly ToolPolicyRule[];
  readonly approvalTimeoutMs?: number;
  readonly untrustedWrites?: UntrustedWritesMode;
  readonly logger?: Logger;
  readonly clock?: () => number;
  /** Share one counter between runs so counts of messages already seen are reused. */
  readonly counter?: TokenCounter;
  /** Builds the registry instead of a plain ToolRegistry (replay's plays the recorded results). */
  readonly registry?: (tools: readonly Tool[], options: RegistryOptions, source?: () => readonly Tool[]) => ToolRegistry;
}

export function createLoopDeps(setup: LoopSetup): LoopDeps {
  const counter = setup.counter ?? TokenCounter.forModel(setup.modelName);
  const contextWindow = contextWindowOf(setup.guards, setup.modelName);
  checkContextWindow(contextWindow, setup.guards.reservedOutputTokens);
  const observationTokens = observationTokenCap(setup.guards, setup.modelName);
  return {
    model: setup.model,
    tools: (setup.registry ?? ((tools, options, source) => new ToolRegistry(tools, options, source)))(
      setup.tools,
      { defaultTimeoutMs: setup.guards.toolTimeoutMs, observationTokens, counter },
      setup.toolSource,
    ),
    counter,
    limits: {
      maxSteps: setup.guards.maxSteps,
      maxConsecutiveErrors: setup.guards.maxConsecutiveErrors,
      oscillationWindow: setup.guards.oscillationWindow,
      contextWindow,
      reservedOutputTokens: setup.guards.reservedOutputTokens,
      runTimeoutMs: setup.guards.runTimeoutMs,
    },
    policy: createToolPolicy(setup.toolPolicy ?? []),
    approvalTimeoutMs: setup.approvalTimeoutMs ?? 15 * 60_000,
    ...(setup.untrustedWrites ? { untrustedWrites: setup.untrustedWrites } : {}),
    logger: setup.logger ?? silentLogger,
    clock: setup.clock,
  };
}
