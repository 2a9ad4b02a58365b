// Defects of the loop found by review and fault probes (issue 14), each through runAgent.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { READ_CONCURRENCY } from "../../../src/agent/loop/call-batch.js";
import { call, calls, say, ScriptedModel } from "../../support/model-scripted.js";
import { flattenForSummary, summaryTimeoutMs } from "../../../src/agent/context/summary.js";
import type { ChatMessage, Model, Tool } from "../../../src/contracts/types.js";
import { answered, runQuestion } from "../../support/loop-harness.js";
import { contentText } from "../../../src/agent/content.js";

function throwing(name: string, thrown: () => unknown): Tool<object> {
  return {
    name,
    description: "throws something odd",
    schema: z.object({}),
    effect: "read",
    execute: async () => {
      throw thrown();
    },
  };
}

describe("odd things thrown", () => {
  const nullObject = () => Object.create(null);
  const badToString = () => ({
    toString() {
      throw new Error("toString broke too");
    },
  });
  const badMessage = () => {
    const error = new Error("x");
    Object.defineProperty(error, "message", {
      get() {
        throw new Error("message broke");
      },
    });
    return error;
  };

  it.each([
    ["a null-prototype object", nullObject],
    ["an object whose toString throws", badToString],
    ["an error whose message throws", badMessage],
  ])("by a tool (%s) become an error observation", async (_, thrown) => {
    const model = new ScriptedModel([call("odd", {}), say("The tool failed.")]);
    const { outcome } = await runQuestion(model, "x", { tools: [throwing("odd", thrown)] });
    const result = answered(outcome);
    expect(result.answer).toBe("The tool failed.");
    expect(result.steps[0]!.calls[0]).toMatchObject({
      outcome: "error",
      observation: expect.stringMatching(/^<<data [0-9a-f]{12} from="the result of tool odd">>\nError: /),
    });
  });

  it.each([
    ["a null-prototype object", nullObject],
    ["an object whose toString throws", badToString],
  ])("by the model (%s) ends in a reply, not a rejection", async (_, thrown) => {
    const model: Model = {
      name: "odd",
      complete: async () => {
        throw thrown();
      },
    };
    const { outcome } = await runQuestion(model, "x");
    expect(answered(outcome).stop?.guard).toBe("model_unavailable");
  });
});

describe("many reads in one reply", () => {
  function gatedReads() {
    let inFlight = 0;
    let most = 0;
    const waiting: Array<() => void> = [];
    const tool: Tool<{ n: number }> = {
      name: "slow_read",
      description: "a read that waits until released",
      schema: z.object({ n: z.number() }),
      effect: "read",
      execute: async ({ n }) => {
        inFlight++;
        most = Math.max(most, inFlight);
        // Every read waits until as many as can run have started: one at a time would never get there.
        await new Promise<void>((resolve) => {
          waiting.push(resolve);
          if (waiting.length >= Math.min(READ_CONCURRENCY, pending.total - pending.released)) {
            pending.released += waiting.length;
            for (const release of waiting.splice(0)) release();
          }
        });
        inFlight--;
        return `read ${n}`;
      },
    };
    const pending = { total: 0, released: 0 };
    return { tool, pending, most: () => most };
  }

  it(`run at most ${READ_CONCURRENCY} at a time, all of them, with results in order`, async () => {
    const reads = gatedReads();
    reads.pending.total = 30;
    const model = new ScriptedModel([calls(...Array.from({ length: 30 }, (_, n) => call("slow_read", { n }))), say("done")]);
    const { outcome } = await runQuestion(model, "x", { tools: [reads.tool] });
    const result = answered(outcome);
    expect(reads.most()).toBe(READ_CONCURRENCY);
    expect(result.steps[0]!.calls.map((item) => item.result)).toEqual(Array.from({ length: 30 }, (_, n) => `read ${n}`));
  });

  it("still run together when there are few", async () => {
    const reads = gatedReads();
    reads.pending.total = 3;
    const model = new ScriptedModel([
      calls(call("slow_read", { n: 1 }), call("slow_read", { n: 2 }), call("slow_read", { n: 3 })),
      say("done"),
    ]);
    const { outcome } = await runQuestion(model, "x", { tools: [reads.tool] });
    expect(answered(outcome).answer).toBe("done");
    expect(reads.most()).toBe(3);
  });
});

describe("the summary after a deadline", () => {
  it("gets a short budget of its own, so a hung model cannot hold the reply", async () => {
    const signals: AbortSignal[] = [];
    const hung: Model = {
      name: "hung",
      complete: (_request, signal) => {
        signals.push(signal);
        return new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason), { once: true }));
      },
    };
    const { outcome } = await runQuestion(hung, "x", { guards: { runTimeoutMs: 300 } });
    const result = answered(outcome);
    expect(result.stop?.guard).toBe("deadline");
    expect(result.answer).toMatch(/could not finish/);
    expect(signals).toHaveLength(2);
    expect(signals.every((signal) => signal.aborted)).toBe(true);
  });

  it.each([
    [1_000, 0, 500],
    [120_000, 0, 2_000],
    [120_000, 5_000, 5_000],
    [120_000, 100_000, 20_000],
  ])("of a run limited to %i ms with %i ms left is %i ms", (limit, left, budget) => {
    expect(summaryTimeoutMs(limit, left)).toBe(budget);
  });
});

describe("calls the registry refuses", () => {
  it("malformed JSON three times is three invalid-argument failures, not a repeat", async () => {
    const broken = { name: "calculator", args: '{"expression": "1+1"' };
    const model = new ScriptedModel([{ calls: [broken] }, { calls: [broken] }, { calls: [broken] }, say("I could not form the call.")]);
    const { outcome } = await runQuestion(model, "x");
    const result = answered(outcome);
    expect(result.steps.flatMap((step) => step.calls.map((item) => item.outcome))).toEqual([
      "invalid_args",
      "invalid_args",
      "invalid_args",
    ]);
    expect(result.stop?.guard).toBe("errors");
  });

  it("three bad calls in one step are three failed attempts, not three failed steps", async () => {
    const broken = { name: "calculator", args: "not json" };
    const model = new ScriptedModel([{ calls: [broken, { ...broken, args: "{" }, { ...broken, args: "[" }] }, say("summary")]);
    const { outcome } = await runQuestion(model, "x");
    const result = answered(outcome);
    expect(result.steps).toHaveLength(1);
    expect(result.stop?.sentence).toBe("Stopped: 3 attempts in a row failed (tool calls or empty replies).");
  });

  it("go through the observation cap like any result", async () => {
    const model = new ScriptedModel([call("x".repeat(20_000), {}), say("ok")]);
    const { outcome } = await runQuestion(model, "x", { guards: { observationTokens: 100 } });
    const refused = answered(outcome).steps[0]!.calls[0]!;
    expect(refused.outcome).toBe("unknown_tool");
    expect(refused.result.length).toBeGreaterThan(20_000);
    expect(refused.observation.length).toBeLessThan(2_000);
    expect(refused.observation).toMatch(/\[truncated: the full result had/);
  });

  it("a call without a tool name is answered with an observation, not taken for an empty reply", async () => {
    const model = new ScriptedModel([call("", {}), say("ok")]);
    const { outcome } = await runQuestion(model, "x");
    const result = answered(outcome);
    expect(result.steps[0]!.calls[0]).toMatchObject({
      outcome: "unknown_tool",
      observation: expect.stringMatching(/^Error: the tool call had no tool name\. Available tools: /),
    });
    const sent = model.requests[1]!.messages;
    expect(sent.some((message) => contentText(message.content).includes("Your last reply was empty"))).toBe(false);
  });
});

describe("the summary request", () => {
  it("carries tool calls and results as text, keeps system messages at the start, alternates roles and ends with the person's side", () => {
    const messages: ChatMessage[] = [
      { role: "system", content: "prompt" },
      { role: "user", content: "question" },
      { role: "assistant", content: null, toolCalls: [{ id: "c1", name: "calculator", arguments: '{"expression":"1+1"}' }] },
      { role: "tool", toolCallId: "c1", content: "2" },
      { role: "system", content: "Your last reply was empty." },
      { role: "assistant", content: "thinking", toolCalls: [{ id: "c2", name: "current_time", arguments: "{}" }] },
      { role: "tool", toolCallId: "c2", content: "noon" },
      { role: "user", content: "stopped: summarise" },
    ];
    const flat = flattenForSummary(messages);
    expect(flat.map((message) => message.role)).toEqual(["system", "user", "assistant", "user", "assistant", "user"]);
    expect(flat.some((message) => message.role === "tool" || (message.role === "assistant" && message.toolCalls))).toBe(false);
    const text = flat.map((message) => message.content).join("\n");
    expect(text).toContain('[called calculator({"expression":"1+1"}) as c1]');
    expect(text).toContain("[tool result c2]\nnoon");
    expect(flat.at(-1)?.content).toMatch(/stopped: summarise$/);
  });
});
