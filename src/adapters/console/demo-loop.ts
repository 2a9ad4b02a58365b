// `/demo loop`: one run of the real loop, under the configured guards, with a model that keeps
// making the same call, so a newcomer sees a guard stop it and the summary that follows.
// It runs beside the conversation, not in it: nothing is remembered and nothing is stored.
import { randomBytes } from "node:crypto";
import type { Logger } from "../../logger.js";
import type { GuardLimits } from "../../config.js";
import { createLoopDeps } from "../../agent/loop/loop-deps.js";
import { runAgent } from "../../agent/loop/loop.js";
import { createDemoModel, LOOP_REQUEST } from "../../agent/models/model-demo.js";
import type { Task } from "../../runs/api/task.js";
import { buildSystemPrompt } from "../../agent/context/system-prompt.js";
import { builtinTools } from "../../agent/tools/builtin.js";
import type { EventSink, RunOutcome } from "../../contracts/types.js";

/** Same shape as AgentService.ask. */
export type DemoLoopRunner = (task: Task, sink: EventSink) => Promise<RunOutcome>;

export const DEMO_LOOP_QUESTION = "What time is it in UTC?";

/** Throws ConfigError when the guard figures can't work (a context window smaller than the output reserve). */
export function createDemoLoopRunner(options: {
  readonly guards: GuardLimits;
  readonly modelName: string;
  readonly logger: Logger;
}): DemoLoopRunner {
  const deps = createLoopDeps({
    model: createDemoModel(),
    modelName: options.modelName,
    tools: builtinTools,
    guards: options.guards,
    logger: options.logger,
  });
  return async (task, sink) => {
    const system = buildSystemPrompt({ surface: task.origin.surface, facts: [], now: new Date() });
    const start = {
      runId: randomBytes(6).toString("base64url"),
      origin: task.origin,
      question: `${LOOP_REQUEST} ${task.text}`,
      context: [{ role: "system" as const, content: system }],
    };
    const { outcome } = await runAgent(start, deps, sink);
    return outcome;
  };
}
