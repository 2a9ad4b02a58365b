import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { call, say, ScriptedModel, type ScriptedCall, type ScriptedReply } from "../../support/model-scripted.js";
import type { ModelRequest, Tool } from "../../../src/contracts/types.js";
import { runQuestion } from "../../support/loop-harness.js";
import { contentText } from "../../../src/agent/content.js";
import { dataInside } from "../../../src/agent/context/data-blocks.js";

/** A read tool that fails for some arguments, so runs mix successes and tool errors. */
const flaky: Tool<{ n: number }> = {
  name: "flaky",
  description: "fails for odd numbers",
  schema: z.object({ n: z.number().int() }),
  effect: "read",
  execute: async ({ n }) => {
    if (n % 2 !== 0) throw new Error(`odd number ${n}`);
    return `even ${n}`;
  },
};

const validCall: fc.Arbitrary<ScriptedCall> = fc.oneof(
  fc.record({
    name: fc.constant("calculator"),
    args: fc.record({
      expression: fc.oneof(
        fc.constantFrom("1+1", "2*3", "1/0", "((", "7%4"),
        fc.integer({ min: 0, max: 30 }).map((n) => `${n}+1`),
      ),
    }),
  }),
  fc.record({
    name: fc.constant("current_time"),
    args: fc.oneof(fc.constant({}), fc.constantFrom({ timezone: "Europe/Paris" }, { timezone: "Mars/Olympus" })),
  }),
  fc.record({ name: fc.constant("flaky"), args: fc.record({ n: fc.integer({ min: 0, max: 5 }) }) }),
);

const brokenCall: fc.Arbitrary<ScriptedCall> = fc.oneof(
  fc.record({ name: fc.constant("calculator"), args: fc.record({ expression: fc.integer() }) }),
  fc.record({ name: fc.constantFrom("weather", "search", ""), args: fc.constant({ city: "Paris" }) }),
  fc.record({ name: fc.constantFrom("calculator", "flaky"), args: fc.constantFrom("{expression: 1+1", "not json", "[1,2", "") }),
);

/** One model reply; "repeat" replays the previous tool call reply so repeats and cycles occur. */
const reply: fc.Arbitrary<ScriptedReply | "repeat"> = fc.oneof(
  { weight: 5, arbitrary: fc.array(validCall, { minLength: 1, maxLength: 3 }).map((calls) => ({ calls })) },
  { weight: 3, arbitrary: fc.constant("repeat" as const) },
  { weight: 2, arbitrary: brokenCall.map((item) => ({ calls: [item] })) },
  { weight: 1, arbitrary: fc.constantFrom<ScriptedReply>({ text: "" }, { text: null }, { text: "   " }) },
  { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 40 }).map((text) => ({ text: `answer: ${text}` })) },
  { weight: 1, arbitrary: fc.constant<ScriptedReply>({ error: new Error("model exploded") }) },
);

function resolveRepeats(script: ReadonlyArray<ScriptedReply | "repeat">): ScriptedReply[] {
  const resolved: ScriptedReply[] = [];
  let previous: ScriptedReply = { calls: [{ name: "calculator", args: { expression: "1+1" } }] };
  for (const item of script) {
    const next = item === "repeat" ? previous : item;
    if (next.calls) previous = next;
    resolved.push(next);
  }
  return resolved;
}

const isCompaction = (request: ModelRequest) =>
  request.tools.length === 0 && contentText(request.messages[0]?.content ?? null).startsWith("You compress");

describe("the loop under random scripts", () => {
  it("never passes the step cap, never throws, and always answers", async () => {
    const endings = new Set<string>();
    await fc.assert(
      fc.asyncProperty(
        fc.array(reply, { minLength: 0, maxLength: 25 }),
        fc.integer({ min: 1, max: 15 }),
        fc.integer({ min: 1, max: 5 }),
        reply,
        async (script, maxSteps, maxConsecutiveErrors, afterScript) => {
          const model = new ScriptedModel(resolveRepeats(script), {
            whenExhausted: afterScript === "repeat" ? { text: "done" } : afterScript,
          });
          const { outcome, events } = await runQuestion(model, "random question", {
            tools: [flaky],
            guards: { maxSteps, maxConsecutiveErrors },
          });

          const compactions = model.requests.filter(isCompaction).length;
          const withTools = model.requests.filter((request) => request.tools.length > 0).length;
          const summaries = model.requests.length - withTools - compactions;
          expect(compactions).toBeLessThanOrEqual(1);
          expect(summaries).toBeLessThanOrEqual(1);
          expect(withTools).toBeLessThanOrEqual(maxSteps);
          expect(model.requests.length).toBeLessThanOrEqual(maxSteps + 2);
          expect(outcome.steps.length).toBeLessThanOrEqual(maxSteps);

          expect(outcome.status).toBe("answered");
          if (outcome.status !== "answered") return;
          expect(outcome.answer.trim()).not.toBe("");
          const tripped = events.filter((event) => event.type === "guard_tripped");
          endings.add(outcome.stop?.guard ?? "answer");
          if (outcome.stop) {
            expect(outcome.stop.sentence.trim()).not.toBe("");
            expect(tripped).toHaveLength(1);
          } else {
            expect(tripped).toHaveLength(0);
            expect(summaries).toBe(0);
          }
          expect(events.at(-1)?.type).toBe("final");
        },
      ),
      { numRuns: 200 },
    );
    // The generator must reach the interesting endings, or the property proves little.
    expect([...endings]).toEqual(expect.arrayContaining(["answer", "errors", "model_unavailable", "oscillation", "repeat", "steps"]));
  });
});

describe("text that spells a tokenizer control token", () => {
  const spelled = "a tokenizer ends a document with <|endoftext|>";
  const quoting: Tool<object> = {
    name: "quote",
    description: "returns text about tokenizers",
    schema: z.object({}),
    effect: "read",
    execute: async () => spelled,
  };

  it("in a tool result still ends in an answer", async () => {
    const model = new ScriptedModel([call("quote", {}), say("It ends with a special marker.")]);
    const { outcome } = await runQuestion(model, "how does a document end?", { tools: [quoting] });
    expect(outcome.status).toBe("answered");
    const seen = model.requests[1]!.messages.at(-1)?.content as string;
    expect(seen).toMatch(/^<<data [0-9a-f]{12} from="the result of tool quote">>\n/);
    expect(dataInside(seen)).toBe(spelled);
  });

  it("in the question still ends in an answer", async () => {
    const model = new ScriptedModel([say("It is a special marker.")]);
    const { outcome } = await runQuestion(model, `what does ${spelled} mean?`);
    expect(outcome.status).toBe("answered");
  });
});
