import { describe, expect, it } from "vitest";
import { z } from "zod";
import { call, say, ScriptedModel } from "../../support/model-scripted.js";
import { TokenCounter } from "../../../src/tokens/token-counter.js";
import type { ModelRequest, Tool } from "../../../src/contracts/types.js";
import { historyTokenBudget } from "../../../src/agent/loop/loop-deps.js";
import { buildSystemPrompt } from "../../../src/agent/context/system-prompt.js";
import { createConversationHistory } from "../../../src/memory/history.js";
import { silentLogger } from "../../../src/logger.js";
import { runAgent } from "../../../src/agent/loop/loop.js";
import { consoleOrigin, defaultGuards, loopDeps, runQuestion } from "../../support/loop-harness.js";
import { mapStore } from "../../support/map-store.js";
import { contentText } from "../../../src/agent/content.js";

const WORDS = "alpha beta gamma delta epsilon zeta eta theta iota kappa ";
const bigText = (chars: number) => WORDS.repeat(Math.ceil(chars / WORDS.length)).slice(0, chars);

const dump: Tool<object> = {
  name: "dump",
  description: "returns a very large document",
  schema: z.object({ part: z.number() }),
  effect: "read",
  execute: async () => bigText(50_000),
};

const isCompaction = (request: ModelRequest) =>
  request.tools.length === 0 && contentText(request.messages[0]?.content ?? null).startsWith("You compress");
const isSummary = (request: ModelRequest) => request.tools.length === 0 && !isCompaction(request);
const has = (request: ModelRequest, marker: string) => request.messages.some((message) => contentText(message.content).includes(marker));

describe("scenario F: a tool result of 50,000 characters in a small window", () => {
  it("folds at yellow, compacts at orange, compacts again at red and trips only when that is not enough; the summary still fits", async () => {
    const budget = 4_000;
    const counter = TokenCounter.forModel("gpt-4o-mini");
    let phase = 0;
    const model = new ScriptedModel([], {
      whenExhausted: (request, index) => {
        if (isCompaction(request))
          return say("Facts found: the document is a list of Greek letters. Calls tried: dump, calculator. Still to do: answer.");
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
    expect(kinds.filter((type) => type === "compacted").length).toBeGreaterThanOrEqual(1);
    expect(kinds.indexOf("compacted")).toBeGreaterThan(kinds.indexOf("folded"));
    expect(kinds.at(-1)).toBe("guard_tripped");
    expect(outcome.stop?.guard).toBe("tokens");
    // The trip comes right after a compaction that could not bring the context below red.
    const lastCompaction = model.requests.map(isCompaction).lastIndexOf(true);
    expect(model.requests.slice(lastCompaction + 1).every(isSummary)).toBe(true);

    const firstDump = outcome.steps[0]!.calls[0]!;
    expect(firstDump.result).toHaveLength(50_000);
    expect(firstDump.observation).toMatch(/truncated: the full result had 50,000 characters/);

    for (const request of model.requests)
      expect(counter.countMessages(request.messages) + counter.countTools(request.tools)).toBeLessThanOrEqual(budget);
    const summaryRequest = model.requests.find(isSummary)!;
    expect(summaryRequest.messages.at(-1)?.content).toMatch(/stopped by a guard \(tokens/);
    expect(outcome.answer).toMatch(/^Summary:/);
  });

  it("hands the daily token limit every model call: steps, compactions and the summary, counted by the tokenizer when the server reports none", async () => {
    const counter = TokenCounter.forModel("gpt-4o-mini");
    const compaction = "Facts found: Greek letters. Calls tried: dump. Still to do: answer.";
    const summary = "Summary: the document repeats Greek letter names.";
    const model = new ScriptedModel([], {
      whenExhausted: (request, index) => {
        if (isCompaction(request)) return say(compaction);
        if (isSummary(request)) return say(summary);
        return { ...call("dump", { part: index }), usage: { promptTokens: 1_000, completionTokens: 7 } };
      },
    });
    let reported = 0;
    const deps = {
      ...loopDeps(model, { tools: [dump], guards: { contextTokens: 4_000 + 2048, observationTokens: 500, maxSteps: 60 } }),
      usageCheck: async (_run: unknown, tokens: number) => {
        reported += tokens;
        return undefined;
      },
    };
    const { outcome } = await runAgent(
      { runId: "run-1", origin: consoleOrigin, question: "read the whole document", context: [] },
      deps,
      () => {},
    );
    expect(outcome).toMatchObject({ status: "answered", answer: summary });
    const counted = (request: ModelRequest, reply: string) =>
      counter.countMessages(request.messages) + counter.countTools(request.tools) + counter.countText(reply);
    const steps = model.requests.filter((request) => !isCompaction(request) && !isSummary(request));
    const compactions = model.requests.filter(isCompaction);
    expect(compactions.length).toBeGreaterThanOrEqual(1);
    expect(reported).toBe(
      steps.length * 1_007 +
        compactions.reduce((sum, request) => sum + counted(request, compaction), 0) +
        counted(model.requests.find(isSummary)!, summary),
    );
  });

  it("cuts a question too large for the window, with a note", async () => {
    const model = new ScriptedModel([say("ok")]);
    const { outcome } = await runQuestion(model, bigText(200_000), { guards: { contextTokens: 6_048 } });
    expect(outcome.status).toBe("answered");
    const sent = contentText(model.requests[0]!.messages.at(-1)!.content);
    expect(sent.length).toBeLessThan(20_000);
    expect(sent).toMatch(/the message was cut here: it had 200,000 characters/);
  });

  it("cuts a question with fewer characters than the cap allows tokens but more tokens (rare CJK: several tokens a character)", async () => {
    const counter = TokenCounter.forModel("gpt-4o-mini");
    const question = "龘".repeat(1_900);
    const cap = (6_048 - 2_048) / 2;
    expect(question.length).toBeLessThan(cap);
    expect(counter.countText(question)).toBeGreaterThan(cap);
    const model = new ScriptedModel([say("ok")]);
    await runQuestion(model, question, { guards: { contextTokens: 6_048 } });
    const sent = contentText(model.requests[0]!.messages.at(-1)!.content);
    expect(sent).toMatch(/the message was cut here: it had 1,900 characters/);
    expect(counter.countText(sent)).toBeLessThanOrEqual(cap + 100);
  });

  it("refuses a context window no larger than the output reserve", async () => {
    const model = new ScriptedModel([say("ok")]);
    await expect(runQuestion(model, "x", { guards: { contextTokens: 1_000 } })).rejects.toThrow(/AGENT_CONTEXT_TOKENS/);
  });
});

describe("a small local window (AGENT_CONTEXT_TOKENS=8192) with a full history", () => {
  it("runs 6 tool steps to an answer and keeps the last 2 history turns in every request", async () => {
    const guards = { ...defaultGuards, contextTokens: 8_192 };
    const counter = TokenCounter.forModel("local-model");
    const budget = historyTokenBudget(guards, "local-model", 4_000);
    expect(budget).toBeLessThan(4_000);
    const history = createConversationHistory(mapStore(), {
      maxTurns: 20,
      maxTokens: budget,
      countTokens: (text) => counter.countText(text),
      logger: silentLogger,
    });
    for (let turn = 1; turn <= 20; turn++)
      await history.append("c", { user: `question ${turn}: ${bigText(600)}`, assistant: `answer ${turn}: ${bigText(900)}`, at: turn });
    const turns = await history.load("c");
    expect(turns.at(-1)?.user).toMatch(/^question 20:/);
    const context = [
      {
        role: "system" as const,
        content: buildSystemPrompt({ surface: "console", facts: [], now: new Date(0), boundary: "000000000000" }),
      },
      ...turns.flatMap((turn) => [
        { role: "user" as const, content: turn.user },
        { role: "assistant" as const, content: turn.assistant },
      ]),
    ];
    const read: Tool<{ page: number }> = {
      name: "read_page",
      description: "reads a page",
      schema: z.object({ page: z.number() }),
      effect: "read",
      execute: async ({ page }) => `page ${page}: ${bigText(8_000)}`,
    };
    const model = new ScriptedModel(
      [...Array.from({ length: 6 }, (_, page) => call("read_page", { page })), say("The pages say alpha to kappa.")],
      {
        whenExhausted: say("Facts found: pages 0-5 list Greek letters. Calls tried: read_page. Still to do: answer."),
      },
    );
    const { outcome } = await runQuestion(model, "summarise pages 0 to 5", { tools: [read], modelName: "local-model", guards, context });
    expect(outcome.status).toBe("answered");
    if (outcome.status !== "answered") return;
    expect(outcome.stop).toBeUndefined();
    expect(outcome.answer).toBe("The pages say alpha to kappa.");
    expect(outcome.steps).toHaveLength(7);
    for (const request of model.requests.filter((request) => request.tools.length > 0)) {
      const texts = request.messages.map((message) => message.content ?? "");
      for (const turn of turns.slice(-2)) {
        expect(texts).toContain(turn.user);
        expect(texts).toContain(turn.assistant);
      }
    }
  });
});
