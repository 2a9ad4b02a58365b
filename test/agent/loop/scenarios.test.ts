import { describe, expect, it } from "vitest";
import { z } from "zod";
import { call, calls, say, ScriptedModel } from "../../support/model-scripted.js";
import type { RunOutcome, Tool } from "../../../src/contracts/types.js";
import { eventTypes, runQuestion, hangingTool } from "../../support/loop-harness.js";

function answered(outcome: RunOutcome): Extract<RunOutcome, { status: "answered" }> {
  if (outcome.status !== "answered") throw new Error(`expected an answer, got ${outcome.status}`);
  return outcome;
}

describe("scenario A: a plain question answered through tools", () => {
  it("calls calculator, calculator, current_time, then answers: 4 model calls, no guard", async () => {
    const model = new ScriptedModel([
      call("calculator", { expression: "3+4" }),
      call("calculator", { expression: "7*5" }),
      call("current_time", {}),
      (request) => say(`(3+4)*5 = 35; the time is in: ${request.messages.at(-1)?.content}`),
    ]);
    const { outcome, events } = await runQuestion(model, "what is (3+4)*5, and what time is it");
    const result = answered(outcome);
    expect(model.requests).toHaveLength(4);
    expect(result.stop).toBeUndefined();
    expect(result.answer).toContain("35");
    expect(result.steps.flatMap((step) => step.calls.map((item) => [item.tool, item.outcome]))).toEqual([
      ["calculator", "ok"],
      ["calculator", "ok"],
      ["current_time", "ok"],
    ]);
    expect(result.steps[1]!.calls[0]!.result).toBe("35");
    expect(eventTypes(events).filter((type) => type === "guard_tripped")).toEqual([]);
    expect(eventTypes(events).at(-1)).toBe("final");
  });
});

describe("scenario B: the same call three times in a row", () => {
  it("runs the tool once, answers the second from memory with a warning, trips on the third", async () => {
    let runs = 0;
    const counting: Tool<{ q: string }> = {
      name: "lookup",
      description: "test lookup",
      schema: z.object({ q: z.string() }),
      effect: "read",
      execute: async ({ q }) => {
        runs++;
        return `result for ${q}`;
      },
    };
    const model = new ScriptedModel([
      call("lookup", { q: "x" }),
      call("lookup", { q: "x" }),
      call("lookup", { q: "x" }),
      say("Summary: lookup x gave 'result for x'."),
    ]);
    const { outcome, events } = await runQuestion(model, "look x up", { tools: [counting] });
    const result = answered(outcome);
    expect(runs).toBe(1);
    expect(result.stop?.guard).toBe("repeat");
    expect(result.stop?.sentence).toMatch(/repeated 3 times/);
    expect(result.answer).toContain("Summary");
    const second = model.requests[2]!.messages.at(-1)!;
    expect(second.content).toContain("result for x");
    expect(second.content).toContain("not run again");
    expect(model.requests[3]!.tools).toEqual([]);
    expect(events.some((event) => event.type === "guard_warned" && event.guard === "repeat")).toBe(true);
  });

  it("treats reordered keys as the same call", async () => {
    const model = new ScriptedModel([
      call("calculator", '{"expression":"1+1"}'),
      call("calculator", '{ "expression" : "1+1" }'),
      call("calculator", { expression: "1+1" }),
      say("2"),
    ]);
    const { outcome } = await runQuestion(model, "1+1");
    expect(answered(outcome).stop?.guard).toBe("repeat");
  });
});

describe("scenario C: bad arguments then an unknown tool", () => {
  it("trips the error guard at its threshold and lists the real tools", async () => {
    const model = new ScriptedModel([
      call("calculator", { expression: 42 }),
      call("weather", { city: "Paris" }),
      say("I could not compute it."),
    ]);
    const { outcome } = await runQuestion(model, "compute", { guards: { maxConsecutiveErrors: 2 } });
    const result = answered(outcome);
    expect(result.stop?.guard).toBe("errors");
    const [first, second] = result.steps.map((step) => step.calls[0]!);
    expect(first!.outcome).toBe("invalid_args");
    expect(first!.observation).toMatch(/expression/);
    expect(second!.outcome).toBe("unknown_tool");
    expect(second!.observation).toContain("calculator, current_time");
    expect(model.requests).toHaveLength(3);
  });

  it("answers arguments that are not JSON with an error observation", async () => {
    const model = new ScriptedModel([call("calculator", "{expression: 1+1"), say("done")]);
    const { outcome } = await runQuestion(model, "compute");
    const observation = answered(outcome).steps[0]!.calls[0]!;
    expect(observation.outcome).toBe("invalid_args");
    expect(observation.observation).toMatch(/not valid JSON/);
  });

  it("a success in between resets the streak", async () => {
    const model = new ScriptedModel([call("nope", {}), call("calculator", { expression: "1" }), call("nope", {}), say("ok")]);
    const { outcome } = await runQuestion(model, "x", { guards: { maxConsecutiveErrors: 2 } });
    expect(answered(outcome).stop).toBeUndefined();
  });
});

describe("scenario D: a drifting model", () => {
  it("is stopped by the step guard at the cap", async () => {
    const model = new ScriptedModel([], {
      whenExhausted: (request, index) =>
        request.tools.length === 0
          ? say("I kept adding numbers and never finished.")
          : call("calculator", { expression: `1+${index + 1}` }),
    });
    const { outcome } = await runQuestion(model, "count forever", { guards: { maxSteps: 5 } });
    const result = answered(outcome);
    expect(result.stop?.guard).toBe("steps");
    expect(result.steps).toHaveLength(5);
    expect(model.requests).toHaveLength(6);
    expect(result.answer).toContain("never finished");
  });
});

describe("scenario E: oscillation", () => {
  it("stops ping-pong A B A B A B", async () => {
    const a = call("calculator", { expression: "1+1" });
    const b = call("calculator", { expression: "2+2" });
    const model = new ScriptedModel([a, b, a, b, a, b, a, say("stuck")]);
    const { outcome } = await runQuestion(model, "x");
    const result = answered(outcome);
    expect(result.stop?.guard).toBe("oscillation");
    const made = result.steps.flatMap((step) => step.calls);
    expect(made).toHaveLength(6);
    expect(made.map((item) => item.outcome)).toEqual(["ok", "ok", "ok", "ok", "ok", "blocked"]);
  });

  it("stops a three-call cycle repeated three times", async () => {
    const cycle = [call("calculator", { expression: "1" }), call("calculator", { expression: "2" }), call("current_time", {})];
    const model = new ScriptedModel([...cycle, ...cycle, ...cycle, ...cycle, say("stuck")], {});
    const { outcome } = await runQuestion(model, "x", { guards: { maxSteps: 20 } });
    const result = answered(outcome);
    expect(result.stop?.guard).toBe("oscillation");
    expect(result.stop?.detail).toMatch(/cycle of 3/);
    const made = result.steps.flatMap((step) => step.calls);
    expect(made).toHaveLength(9);
    expect(made.at(-1)!.outcome).toBe("blocked");
  });

  it("stops one call dominating the window", async () => {
    const a = call("calculator", { expression: "1" });
    const model = new ScriptedModel([
      a,
      call("calculator", { expression: "2" }),
      a,
      call("calculator", { expression: "3" }),
      a,
      a,
      say("stuck"),
    ]);
    const { outcome } = await runQuestion(model, "x");
    expect(answered(outcome).stop?.detail).toMatch(/4 of the last 6/);
  });
});

describe("scenario G: time limits", () => {
  it("turns a tool that never settles into a timeout observation", async () => {
    const hanging: Tool<object> = { ...hangingTool, timeoutMs: 20 };
    const model = new ScriptedModel([call("hang", {}), say("the tool timed out")]);
    const { outcome } = await runQuestion(model, "x", { tools: [hanging] });
    const result = answered(outcome);
    expect(result.steps[0]!.calls[0]!.outcome).toBe("timeout");
    expect(result.steps[0]!.calls[0]!.observation).toMatch(/did not finish within 20 ms/);
    expect(result.answer).toBe("the tool timed out");
  });

  it("stops a run past its deadline and still summarises", async () => {
    const model = new ScriptedModel([call("calculator", { expression: "1+1" }), { never: true }, say("I got 2 before time ran out.")]);
    const { outcome } = await runQuestion(model, "x", { guards: { runTimeoutMs: 50 } });
    const result = answered(outcome);
    expect(result.stop?.guard).toBe("deadline");
    expect(result.answer).toBe("I got 2 before time ran out.");
  });
});

describe("scenario H: the summary call fails", () => {
  it("builds the reply from the steps without the model", async () => {
    const a = call("calculator", { expression: "6*7" });
    const model = new ScriptedModel([a, a, a, { error: new Error("server down") }]);
    const { outcome } = await runQuestion(model, "what is 6*7");
    const result = answered(outcome);
    expect(result.stop?.guard).toBe("repeat");
    expect(result.answer).toContain("calculator");
    expect(result.answer).toContain("42");
    expect(result.answer).toMatch(/What is missing/);
  });

  it("uses the fallback when the summary still asks for tools", async () => {
    const a = call("calculator", { expression: "6*7" });
    const model = new ScriptedModel([a, a, a, a]);
    const { outcome } = await runQuestion(model, "what is 6*7");
    expect(answered(outcome).answer).toMatch(/^I could not finish/);
  });

  it("says the model is unavailable when the first call fails", async () => {
    const model = new ScriptedModel([{ error: new Error("connection refused") }]);
    const { outcome } = await runQuestion(model, "hello");
    const result = answered(outcome);
    expect(result.stop?.guard).toBe("model_unavailable");
    expect(result.answer).toBe('I could not get an answer to "hello" from the model.');
    expect(result.stop?.sentence).toBe("Stopped: the model call failed (connection refused). Try again in a moment.");
    expect(model.requests).toHaveLength(1);
  });
});

describe("replies the model gets wrong", () => {
  it("counts empty replies as errors", async () => {
    const model = new ScriptedModel([{ text: "" }, { text: null }, { text: "  " }, say("sorry")]);
    const { outcome } = await runQuestion(model, "x");
    expect(answered(outcome).stop?.guard).toBe("errors");
  });

  it("runs several reads of one reply and answers each call id", async () => {
    const model = new ScriptedModel([
      calls(call("calculator", { expression: "1+1" }), call("calculator", { expression: "2+2" })),
      say("2 and 4"),
    ]);
    const { outcome } = await runQuestion(model, "x");
    const toolMessages = model.requests[1]!.messages.filter((message) => message.role === "tool");
    expect(toolMessages.map((message) => message.content)).toEqual(
      ["2", "4"].map((result) =>
        expect.stringMatching(new RegExp(`^<<data [0-9a-f]{12} from="the result of tool calculator">>\n${result}\n`)),
      ),
    );
    expect(answered(outcome).answer).toBe("2 and 4");
  });

  it("replaces long or duplicate call ids with short unique ones", async () => {
    const long = "x".repeat(90);
    const model = new ScriptedModel([
      calls(call("calculator", { expression: "1" }, long), call("calculator", { expression: "2" }, long)),
      say("ok"),
    ]);
    await runQuestion(model, "x");
    const assistant = model.requests[1]!.messages.find((message) => message.role === "assistant");
    const ids = assistant?.role === "assistant" ? assistant.toolCalls!.map((item) => item.id) : [];
    expect(ids).toEqual(["call_1_1", "call_1_2"]);
  });
});
