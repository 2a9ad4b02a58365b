import { describe, expect, it } from "vitest";
import { z } from "zod";
import { call, say, ScriptedModel } from "../src/agent/model-scripted.js";
import { TokenCounter } from "../src/agent/token-counter.js";
import type { ModelRequest, Tool } from "../src/agent/types.js";
import { runQuestion } from "./support/loop-harness.js";

const WORDS = "alpha beta gamma delta epsilon zeta eta theta iota kappa ";
const bigText = (chars: number) => WORDS.repeat(Math.ceil(chars / WORDS.length)).slice(0, chars);

const dump: Tool<object> = {
  name: "dump",
  description: "returns a very large document",
  schema: z.object({ part: z.number() }),
  effect: "read",
  execute: async () => bigText(50_000),
};

const isCompaction = (request: ModelRequest) => request.tools.length === 0 && request.messages[0]?.content?.startsWith("You compress") === true;
const isSummary = (request: ModelRequest) => request.tools.length === 0 && !isCompaction(request);
const has = (request: ModelRequest, marker: string) => request.messages.some((message) => message.content?.includes(marker));

describe("scenario F: a tool result of 50,000 characters in a small window", () => {
  it("folds at yellow, compacts once at orange, trips at red, and the summary still fits", async () => {
    const budget = 4_000;
    const counter = TokenCounter.forModel("gpt-4o-mini");
    let phase = 0;
    const model = new ScriptedModel([], {
      whenExhausted: (request, index) => {
        if (isCompaction(request)) return say("Facts found: the document is a list of Greek letters. Calls tried: dump, calculator. Still to do: answer.");
        if (isSummary(request)) return say("Summary: the document repeats Greek letter names; I ran out of room before finishing.");
        if (has(request, "State snapshot")) phase = 2;
        else if (has(request, "[folded:")) phase = 1;
        if (phase === 0) return call("dump", { part: index });
        if (phase === 1) return { text: bigText(900), calls: [{ name: "calculator", args: { expression: `${index}+1` } }] };
        return { text: bigText(20_000), calls: [{ name: "calculator", args: { expression: `${index}*2` } }] };
      },
    });
    const { outcome, events } = await runQuestion(model, "read the whole document", {
      tools: [dump],
      guards: { contextTokens: budget + 2048, observationTokens: 500, maxSteps: 60 },
    });

    expect(outcome.status).toBe("answered");
    if (outcome.status !== "answered") return;
    const kinds = events.map((event) => event.type).filter((type) => ["folded", "compacted", "guard_tripped"].includes(type));
    expect(kinds[0]).toBe("folded");
    expect(kinds.filter((type) => type === "compacted")).toHaveLength(1);
    expect(kinds.indexOf("compacted")).toBeGreaterThan(kinds.indexOf("folded"));
    expect(kinds.at(-1)).toBe("guard_tripped");
    expect(outcome.stop?.guard).toBe("tokens");
    expect(model.requests.filter(isCompaction)).toHaveLength(1);

    const firstDump = outcome.steps[0]!.calls[0]!;
    expect(firstDump.result).toHaveLength(50_000);
    expect(firstDump.observation).toMatch(/truncated: the full result had 50,000 characters/);

    for (const request of model.requests) expect(counter.countMessages(request.messages) + counter.countTools(request.tools)).toBeLessThanOrEqual(budget);
    const summaryRequest = model.requests.find(isSummary)!;
    expect(summaryRequest.messages.at(-1)?.content).toMatch(/stopped by a guard \(tokens/);
    expect(outcome.answer).toMatch(/^Summary:/);
  });

  it("cuts a question too large for the window, with a note", async () => {
    const model = new ScriptedModel([say("ok")]);
    const { outcome } = await runQuestion(model, bigText(200_000), { guards: { contextTokens: 6_048 } });
    expect(outcome.status).toBe("answered");
    const sent = model.requests[0]!.messages.at(-1)!.content!;
    expect(sent.length).toBeLessThan(20_000);
    expect(sent).toMatch(/the message was cut here: it had 200,000 characters/);
  });

  it("refuses a context window no larger than the output reserve", async () => {
    const model = new ScriptedModel([say("ok")]);
    await expect(runQuestion(model, "x", { guards: { contextTokens: 1_000 } })).rejects.toThrow(/AGENT_CONTEXT_TOKENS/);
  });
});
