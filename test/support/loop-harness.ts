// Builds a loop with the built-in tools (plus any extra) and records every event.
import { z } from "zod";
import { loadConfig, type GuardLimits } from "../../src/config.js";
import { createLoopDeps } from "../../src/agent/loop/loop-deps.js";
import { runAgent } from "../../src/agent/loop/loop.js";
import type { LoopDeps, LoopResult } from "../../src/agent/loop/loop-types.js";
import { builtinTools } from "../../src/agent/tools/builtin.js";
import type { Logger } from "../../src/logger.js";
import type { AgentEvent, ChatMessage, Model, RunOutcome, TaskOrigin, Tool } from "../../src/contracts/types.js";

export const defaultGuards: GuardLimits = loadConfig({}).guards;

export const consoleOrigin: TaskOrigin = {
  surface: "console",
  conversationKey: "console:test",
  requester: { id: "alice", name: "Alice" },
  place: {},
};

/** A read tool that never returns: a call to it ends at its timeout, or the run's deadline. */
export const hangingTool: Tool<object> = {
  name: "hang",
  description: "never returns",
  schema: z.object({}),
  effect: "read",
  execute: () => new Promise(() => {}),
};

export interface HarnessOptions {
  readonly guards?: Partial<GuardLimits>;
  readonly tools?: readonly Tool[];
  readonly modelName?: string;
  readonly clock?: () => number;
  readonly approvalTimeoutMs?: number;
  readonly logger?: Logger;
  /** Earlier turns and the system prompt; default: one short system message. */
  readonly context?: readonly ChatMessage[];
}

export function loopDeps(model: Model, options: HarnessOptions = {}): LoopDeps {
  return createLoopDeps({
    model,
    modelName: options.modelName ?? "gpt-4o-mini",
    tools: [...builtinTools, ...(options.tools ?? [])],
    guards: { ...defaultGuards, ...options.guards },
    approvalTimeoutMs: options.approvalTimeoutMs,
    clock: options.clock,
    logger: options.logger,
  });
}

export async function runQuestion(
  model: Model,
  question: string,
  options: HarnessOptions = {},
): Promise<LoopResult & { events: AgentEvent[]; deps: LoopDeps }> {
  const events: AgentEvent[] = [];
  const deps = loopDeps(model, options);
  const result = await runAgent(
    { runId: "run-1", origin: consoleOrigin, question, context: options.context ?? [{ role: "system", content: "You are a test agent." }] },
    deps,
    (event) => events.push(event),
  );
  return { ...result, events, deps };
}

export function answered(outcome: RunOutcome): Extract<RunOutcome, { status: "answered" }> {
  if (outcome.status !== "answered") throw new Error(`expected an answer, got ${outcome.status}`);
  return outcome;
}

export function eventTypes(events: readonly AgentEvent[]): string[] {
  return events.map((event) => event.type);
}
