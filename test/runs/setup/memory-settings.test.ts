// MEMORY_RECALL_FACTS and MEMORY_HISTORY_TOKENS reach the run: what the model is sent changes
// with them (a run with the setting ignored would send more).
import { describe, expect, it } from "vitest";
import { say, ScriptedModel } from "../../support/model-scripted.js";
import { TokenCounter } from "../../../src/tokens/token-counter.js";
import { silentLogger } from "../../../src/logger.js";
import { createConversationHistory } from "../../../src/memory/history.js";
import { createLongTermMemory } from "../../../src/memory/long-term-memory.js";
import { originFor } from "../../support/service-harness.js";
import { useServiceHarnesses } from "../../support/service-harness.js";
import { contentText } from "../../../src/agent/content.js";

const services = useServiceHarnesses();

describe("memory settings reach the run", () => {
  it("MEMORY_RECALL_FACTS: the run's note holds at most that many remembered facts", async () => {
    const model = new ScriptedModel([say("Noted.")]);
    const { service, store, sink } = await services.start({ model, env: { MEMORY_RECALL_FACTS: "3" } });
    const origin = originFor("alice", "console:recall");
    const facts = [
      "User drinks coffee in the morning",
      "User drinks tea after lunch",
      "User drinks water at night",
      "User drinks juice on Sundays",
      "User drinks cocoa in winter",
    ];
    await createLongTermMemory(store, { maxFacts: 200, logger: silentLogger }).remember(origin.conversationKey, facts);
    await service.ask({ origin, text: "What does the user drink?" }, sink);
    // The run's note (time and facts) comes right before the question, after what stays the same from run to run.
    const note = contentText(model.requests[0]!.messages.at(-2)!.content);
    expect(model.requests[0]!.messages.at(-2)!.role).toBe("system");
    const listed = facts.filter((fact) => note.includes(`- ${fact}`));
    expect(listed).toHaveLength(3);
  });

  it("MEMORY_HISTORY_TOKENS: only the newest turns within that many tokens are sent", async () => {
    const model = new ScriptedModel([say("Sure.")]);
    const { service, store, sink } = await services.start({ model, env: { MEMORY_HISTORY_TOKENS: "300" } });
    const origin = originFor("alice", "console:history");
    const counter = TokenCounter.forModel("gpt-4o-mini");
    const countTokens = (text: string) => counter.countText(text);
    const seeded = createConversationHistory(store, { maxTurns: 10, maxTokens: 100_000, countTokens, logger: silentLogger });
    // Each side about 35 tokens, each turn about 70: six are over 300, so the oldest go in a block down to two thirds (200): two are left.
    const side = (label: string) => `${label} ${"word ".repeat(34)}`.trim();
    for (let index = 1; index <= 6; index += 1)
      await seeded.append(origin.conversationKey, { user: side(`question-${index}`), assistant: side(`answer-${index}`), at: index });
    expect(countTokens(side("question-1"))).toBeGreaterThan(30);
    expect(countTokens(side("question-1"))).toBeLessThan(38);
    await service.ask({ origin, text: "and then?" }, sink);
    const sent = model.requests[0]!.messages.map((message) => contentText(message.content));
    const turns = sent.filter((content) => content.startsWith("question-")).map((content) => content.split(" ")[0]);
    expect(turns).toEqual(["question-5", "question-6"]);
  });
});
