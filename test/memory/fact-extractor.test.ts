import { describe, expect, it } from "vitest";
import { ScriptedModel, type ScriptedReply } from "../support/model-scripted.js";
import { ModelUnavailableError } from "../../src/errors.js";
import { extractFacts, MAX_FACT_LENGTH, MAX_FACTS_PER_EXCHANGE } from "../../src/memory/fact-extractor.js";
import { capturingLogger } from "../support/capturing-logger.js";

const exchange = {
  user: "I'm Ann, I run the Atlas project. What's our deploy day?",
  assistant: "Deploys happen on Fridays.",
  known: ["User prefers dark mode"],
};

async function extract(reply: ScriptedReply, signal: AbortSignal = new AbortController().signal) {
  const model = new ScriptedModel([reply]);
  const { logger, warnings } = capturingLogger();
  const facts = await extractFacts(model, exchange, signal, logger);
  return { facts, warnings: warnings(), request: model.requests[0] };
}

describe("extractFacts", () => {
  it("makes one JSON-mode call without tools and returns the facts", async () => {
    const { facts, warnings, request } = await extract({
      text: JSON.stringify({ facts: ["User's name is Ann", " User runs the Atlas project "] }),
    });
    expect(facts).toEqual(["User's name is Ann", "User runs the Atlas project"]);
    expect(warnings).toEqual([]);
    expect(request?.responseFormat).toBe("json_object");
    expect(request?.tools).toEqual([]);
    expect(request?.messages[0]?.role).toBe("system");
    const prompt = request?.messages.map((message) => message.content).join("\n") ?? "";
    expect(prompt).toContain(exchange.user);
    expect(prompt).toContain(exchange.assistant);
    expect(prompt).toContain("User prefers dark mode");
  });

  it("returns [] without a warning when nothing is worth keeping", async () => {
    const { facts, warnings } = await extract({ text: '{"facts": []}' });
    expect(facts).toEqual([]);
    expect(warnings).toEqual([]);
  });

  it("accepts a reply wrapped in a code fence", async () => {
    const { facts } = await extract({ text: '```json\n{"facts": ["User\'s name is Ann"]}\n```' });
    expect(facts).toEqual(["User's name is Ann"]);
  });

  it("drops empty, over-long and repeated facts and keeps at most the cap", async () => {
    const many = Array.from({ length: 8 }, (_, index) => `Fact number ${index}`);
    const { facts } = await extract({
      text: JSON.stringify({ facts: ["", "   ", "x".repeat(MAX_FACT_LENGTH + 1), "Fact number 0", ...many] }),
    });
    expect(facts).toEqual(many.slice(0, MAX_FACTS_PER_EXCHANGE));
  });

  it.each([
    ["malformed JSON", { text: '{"facts": ["unterminated' }],
    ["the wrong shape", { text: '{"memories": ["User is Ann"]}' }],
    ["facts that are not strings", { text: '{"facts": [1, {"text": "User is Ann"}]}' }],
    ["a JSON list instead of an object", { text: '["User is Ann"]' }],
    ["no text at all", { text: null }],
  ])("returns [] and warns on %s", async (_, reply) => {
    const { facts, warnings } = await extract(reply);
    expect(facts).toEqual([]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.msg).toContain("Fact extraction failed");
  });

  it("returns [] and warns when the model fails", async () => {
    const { facts, warnings } = await extract({ error: new ModelUnavailableError("connection refused") });
    expect(facts).toEqual([]);
    expect(warnings[0]?.msg).toContain("the model call did not succeed");
  });

  it("returns [] when the run is cancelled while it waits", async () => {
    const controller = new AbortController();
    const pending = extract({ never: true }, controller.signal);
    controller.abort(new Error("shutting down"));
    const { facts, warnings } = await pending;
    expect(facts).toEqual([]);
    expect(warnings).toHaveLength(1);
  });
});
