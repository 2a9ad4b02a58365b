// The loop over a model with fallbacks: a step that moves to another endpoint is an event as it
// happens and a fact of its step (which endpoint answered, after which moves), kept through a
// checkpoint; a step moved to a smaller window folds the run's context for it first.
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { createEndpointBreakers } from "../../../src/agent/models/endpoint-breakers.js";
import { createFailoverModel, type ModelEndpoint } from "../../../src/agent/models/failover-model.js";
import { RunStateSchema } from "../../../src/agent/loop/run-state.js";
import type { Tool } from "../../../src/contracts/types.js";
import { ModelUnavailableError } from "../../../src/errors.js";
import { silentLogger } from "../../../src/logger.js";
import { answered, runQuestion } from "../../support/loop-harness.js";
import { call, ScriptedModel, say } from "../../support/model-scripted.js";

const A = "gpt-4o-mini@https://a.example/v1";
const B = "gpt-4o@https://b.example/v1";
const failing = new ModelUnavailableError({ cause: "the model server is failing (503)", fix: "", retryable: true, status: 503 });

function failover(a: ScriptedModel, b: ScriptedModel, windowOfB = 128_000) {
  const endpoints: [ModelEndpoint, ...ModelEndpoint[]] = [
    { name: A, model: a, contextWindow: 128_000 },
    { name: B, model: b, contextWindow: windowOfB },
  ];
  return createFailoverModel({
    endpoints,
    breakers: createEndpointBreakers({ failuresToOpen: 3, coolDownMs: 30_000 }),
    maxRetries: 3,
    logger: silentLogger,
  });
}

/** A read tool whose result is long enough to be folded. */
const report: Tool<{ part: number }> = {
  name: "read_report",
  description: "reads a part of the report",
  schema: z.object({ part: z.number() }),
  effect: "read",
  execute: async ({ part }) => `part ${part}: ${"figures and words ".repeat(90)}`,
};

describe("a step that moves to another endpoint", () => {
  it("is an event as it happens, and its step says who answered after which move", async () => {
    const a = new ScriptedModel([call("calculator", { expression: "2+2" }), { error: failing }]);
    const b = new ScriptedModel([say("4, from b")]);
    const { outcome, events, state } = await runQuestion(failover(a, b), "what is 2+2?");
    expect(answered(outcome).answer).toBe("4, from b");
    expect(events.filter((event) => event.type === "model_switched")).toEqual([
      { type: "model_switched", runId: "run-1", step: 2, from: A, to: B, cause: "503 from a.example" },
    ]);
    expect(events.find((event) => event.type === "model_replied" && event.step === 2)).toMatchObject({ endpoint: B });
    expect(outcome.steps.map((step) => [step.endpoint, step.switches])).toEqual([
      [A, undefined],
      [B, [{ from: A, to: B, cause: "503 from a.example" }]],
    ]);
    // A checkpoint keeps it, and one stored before endpoints existed still loads.
    expect(RunStateSchema.parse(JSON.parse(JSON.stringify(state))).steps[1]).toMatchObject({ endpoint: B, switches: [{ from: A }] });
    const older = { ...state, steps: state.steps.map(({ endpoint: _endpoint, switches: _switches, ...step }) => step) };
    expect(RunStateSchema.parse(JSON.parse(JSON.stringify(older))).steps[1]?.endpoint).toBeUndefined();
  });

  it("to a smaller window folds the run's context for it first", async () => {
    const reads = [1, 2, 3, 4].map((part) => call("read_report", { part }));
    const a = new ScriptedModel([...reads, { error: failing }]);
    const b = new ScriptedModel([say("summed up")]);
    const { outcome, events } = await runQuestion(failover(a, b, 4_096), "sum up the report", { tools: [report] });
    expect(answered(outcome).answer).toBe("summed up");
    const types = events.filter((event) => ("step" in event && event.step === 5) || event.type === "folded").map((event) => event.type);
    // The new endpoint's answer streams in after the fold it needed, before the step's reply.
    expect(types).toEqual(["step_started", "model_switched", "folded", "text_delta", "text_delta", "model_replied"]);
    const sent = b.requests[0]!.messages.filter((message) => message.role === "tool").map((message) => message.content);
    expect(sent.filter((content) => content.startsWith("[folded:"))).toHaveLength(2);
    // The steps on the larger window saw none of it.
    expect(a.requests.at(-1)!.messages.some((message) => message.role === "tool" && message.content.startsWith("[folded:"))).toBe(false);
  });
});
