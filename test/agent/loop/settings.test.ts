// Each setting the loop takes, and its per-step log line, changes what a run does (issue 14, item 7).
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { runAgent } from "../../../src/agent/loop/loop.js";
import { call, calls, say, ScriptedModel } from "../../support/model-scripted.js";
import { TokenCounter } from "../../../src/tokens/token-counter.js";
import type { Tool } from "../../../src/contracts/types.js";
import { createLogger } from "../../../src/logger.js";
import { answered, consoleOrigin, loopDeps, runQuestion, hangingTool } from "../../support/loop-harness.js";

describe("AGENT_TOOL_TIMEOUT_MS", () => {
  it("is the time a tool call gets", async () => {
    const model = new ScriptedModel([call("hang", {}), say("It timed out.")]);
    const { outcome } = await runQuestion(model, "x", { tools: [hangingTool], guards: { toolTimeoutMs: 40 } });
    expect(answered(outcome).steps[0]!.calls[0]).toMatchObject({
      outcome: "timeout",
      result: "Timeout: hang did not finish within 40 ms.",
    });
  });
});

describe("AGENT_OSCILLATION_WINDOW", () => {
  // A takes 2 of every 3 calls, never three in a row and never a clean cycle: only the share rule can see it.
  const pattern = ["a", "a", "b", "a", "a", "c", "a", "a", "d", "a", "a", "e", "a", "a", "f"];
  const lookup: Tool<{ key: string }> = {
    name: "lookup",
    description: "looks up",
    schema: z.object({ key: z.string() }),
    effect: "read",
    execute: async ({ key }) => `value of ${key}`,
  };
  const reply = () => calls(...pattern.map((key) => call("lookup", { key })));

  it.each([
    [6, 6],
    [12, 12],
    [15, 15],
  ])("with a window of %i, the share rule stops the run at call %i", async (window, stoppedAt) => {
    const model = new ScriptedModel([reply(), say("summary")]);
    const { outcome } = await runQuestion(model, "x", { tools: [lookup], guards: { oscillationWindow: window } });
    const result = answered(outcome);
    expect(result.stop?.guard).toBe("oscillation");
    expect(result.stop?.detail).toMatch(new RegExp(`of the last ${window} calls`));
    const outcomes = result.steps[0]!.calls.map((item) => item.outcome);
    expect(outcomes.indexOf("blocked")).toBe(stoppedAt - 1);
  });
});

describe("token counting in the loop", () => {
  it("counts each message once as it is appended, not the whole history again", async () => {
    const steps = 12;
    const model = new ScriptedModel([
      ...Array.from({ length: steps }, (_, n) => call("calculator", { expression: `${n}+1` })),
      say("done"),
    ]);
    const counter = TokenCounter.forModel("gpt-4o-mini");
    const countMessage = vi.spyOn(counter, "countMessage");
    const deps = { ...loopDeps(model, { guards: { maxSteps: 20 } }), counter };
    const result = await runAgent(
      { runId: "r", origin: consoleOrigin, question: "count", context: [{ role: "system", content: "s" }] },
      deps,
      () => {},
    );
    expect(answered(result.outcome).steps).toHaveLength(steps + 1);
    const messages = result.state.messages.length;
    // Once each when counted up front, once each when the run starts, and once per append.
    expect(countMessage.mock.calls.length).toBeLessThanOrEqual(3 * messages);
  });
});

describe("the per-step log line", () => {
  it("names the step, its calls by tool and argument hash, its time, the context tokens and the outcome", async () => {
    const lines: Array<Record<string, unknown>> = [];
    const logger = createLogger("info", {
      write: (chunk: string) =>
        void lines.push(
          ...chunk
            .split("\n")
            .filter(Boolean)
            .map((line) => JSON.parse(line) as Record<string, unknown>),
        ),
    });
    const model = new ScriptedModel([calls(call("calculator", { expression: "2+2" }), call("current_time", {})), say("4, and it is now.")]);
    await runQuestion(model, "x", { logger });
    const steps = lines.filter((line) => line.msg === "step");
    expect(steps).toHaveLength(2);
    expect(steps[0]).toMatchObject({ runId: "run-1", step: 1, tools: ["calculator", "current_time"], outcome: ["ok", "ok"] });
    expect(steps[0]!.args).toEqual([expect.stringMatching(/^[0-9a-f]{16}$/), expect.stringMatching(/^[0-9a-f]{16}$/)]);
    expect(steps[0]!.durationMs).toEqual(expect.any(Number));
    expect(steps[0]!.tokens).toEqual(expect.any(Number));
    expect(steps[1]).toMatchObject({ step: 2, tools: [], outcome: "answer" });
    expect(steps[1]!.tokens as number).toBeGreaterThan(steps[0]!.tokens as number);
  });
});
