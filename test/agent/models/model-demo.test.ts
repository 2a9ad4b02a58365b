import { describe, expect, it } from "vitest";
import { flattenForSummary } from "../../../src/agent/context/summary.js";
import { createDemoModel, LOOP_REQUEST } from "../../../src/agent/models/model-demo.js";
import { builtinTools } from "../../../src/agent/tools/builtin.js";
import { calculatorTool } from "../../../src/agent/tools/calculator.js";
import { createCurrentTimeTool } from "../../../src/agent/tools/current-time.js";
import type { ChatMessage, Model, ModelReply, Tool, ToolContext, ToolSchema } from "../../../src/contracts/types.js";

const live = () => new AbortController().signal;
const TOOL_SCHEMAS: ToolSchema[] = builtinTools.map((tool) => ({
  name: tool.name,
  description: tool.description,
  parameters: { type: "object" },
}));
const clockTool = createCurrentTimeTool(() => new Date("2025-01-14T14:04:05Z"));
const TOOLS: Readonly<Record<string, Tool>> = { calculator: calculatorTool, current_time: clockTool };
const context: ToolContext = {
  signal: live(),
  runId: "run-1",
  origin: { surface: "console", conversationKey: "console:local", requester: { id: "me" }, place: {} },
};

/** A tiny stand-in for the loop: run each call through the real tool and feed the result back. */
async function converse(model: Model, question: string, maxSteps = 8): Promise<{ replies: ModelReply[]; messages: ChatMessage[] }> {
  const messages: ChatMessage[] = [{ role: "user", content: question }];
  const replies: ModelReply[] = [];
  for (let step = 0; step < maxSteps; step += 1) {
    const reply = await model.complete({ messages: [...messages], tools: TOOL_SCHEMAS }, live());
    replies.push(reply);
    messages.push({ role: "assistant", content: reply.content, toolCalls: reply.toolCalls });
    if (reply.toolCalls.length === 0) break;
    for (const call of reply.toolCalls) {
      const content = await TOOLS[call.name]!.execute(JSON.parse(call.arguments), context).then(
        String,
        (error: Error) => `Error: ${error.message}`,
      );
      messages.push({ role: "tool", toolCallId: call.id, content });
    }
  }
  return { replies, messages };
}

const callsOf = (replies: readonly ModelReply[]) =>
  replies.flatMap((reply) => reply.toolCalls.map((call) => [call.name, JSON.parse(call.arguments)]));

describe("createDemoModel", () => {
  it("calls calculator, then current_time, one per step, then answers with the results", async () => {
    const { replies } = await converse(createDemoModel(), "what is (3+4)*5, and what time is it");
    expect(callsOf(replies)).toEqual([
      ["calculator", { expression: "(3+4)*5" }],
      ["current_time", {}],
    ]);
    expect(replies).toHaveLength(3);
    expect(replies[2]!.content).toContain("(3+4)*5 = 35");
    expect(replies[2]!.content).toContain("14:04:05 in UTC");
  });

  it("finds each expression in a sentence", async () => {
    const { replies } = await converse(createDemoModel(), "What's 12 / 4 and 2^10?");
    expect(callsOf(replies)).toEqual([
      ["calculator", { expression: "12 / 4" }],
      ["calculator", { expression: "2^10" }],
    ]);
    expect(replies.at(-1)!.content).toBe("12 / 4 = 3\n2^10 = 1024");
  });

  it("asks for the zone of a named IANA zone or a well-known city", async () => {
    const model = createDemoModel();
    expect(callsOf((await converse(model, "what time is it in Europe/Paris")).replies)).toEqual([
      ["current_time", { timezone: "Europe/Paris" }],
    ]);
    expect(callsOf((await converse(model, "What's the time in Tokyo?")).replies)).toEqual([["current_time", { timezone: "Asia/Tokyo" }]]);
  });

  it("reports a tool error honestly", async () => {
    const { replies } = await converse(createDemoModel(), "what is 1/0");
    expect(replies.at(-1)!.content).toMatch(/I could not work out 1\/0: .*Division by zero/);
  });

  it("answers an unrelated question honestly, without calling tools", async () => {
    const { replies } = await converse(createDemoModel(), "write me a poem about the sea");
    expect(replies).toHaveLength(1);
    expect(replies[0]!.toolCalls).toEqual([]);
    expect(replies[0]!.content).toContain("offline demo");
    expect(replies[0]!.content).toContain("OPENAI_API_KEY");
  });

  it("does not take a date for arithmetic", async () => {
    const { replies } = await converse(createDemoModel(), "remind me about 2024-01-15");
    expect(callsOf(replies)).toEqual([]);
  });

  it("only plans calls to tools it was offered", async () => {
    const reply = await createDemoModel().complete(
      { messages: [{ role: "user", content: "what is 2+2" }], tools: [TOOL_SCHEMAS[1]!] },
      live(),
    );
    expect(reply.toolCalls).toEqual([]);
    expect(reply.content).toContain("offline demo");
  });

  it("summarises the tool results it sees when no tools are offered", async () => {
    const { messages } = await converse(createDemoModel(), "what is (3+4)*5");
    const reply = await createDemoModel().complete({ messages, tools: [] }, live());
    expect(reply.toolCalls).toEqual([]);
    expect(reply.content).toContain("calculator (3+4)*5: 35");
  });

  it("is deterministic and never throws on odd input", async () => {
    const odd: ChatMessage[] = [
      { role: "assistant", content: null, toolCalls: [{ id: "x", name: "calculator", arguments: "not json" }] },
      { role: "tool", toolCallId: "unknown", content: "" },
    ];
    const model = createDemoModel();
    for (const tools of [TOOL_SCHEMAS, []]) {
      const first = await model.complete({ messages: odd, tools }, live());
      expect(await model.complete({ messages: odd, tools }, live())).toEqual(first);
      expect(typeof first.content).toBe("string");
    }
  });
});

describe("a loop request to the demo model (the console's /demo loop)", () => {
  it("repeats the identical current_time call whenever tools are offered, whatever it was asked", async () => {
    const { replies } = await converse(createDemoModel(), `${LOOP_REQUEST} what is 2+2`, 3);
    expect(replies).toHaveLength(3);
    expect(replies.map((reply) => reply.toolCalls.map((call) => [call.name, call.arguments]))).toEqual([
      [["current_time", '{"timezone":"UTC"}']],
      [["current_time", '{"timezone":"UTC"}']],
      [["current_time", '{"timezone":"UTC"}']],
    ]);
    expect(new Set(replies.map((reply) => reply.toolCalls[0]!.id)).size).toBe(3);
  });

  it("sums up what it found and that it kept repeating, in the summary request as the loop sends it", async () => {
    const { messages } = await converse(createDemoModel(), `${LOOP_REQUEST} What time is it in UTC?`, 2);
    const note: ChatMessage = { role: "user", content: "The run was stopped by a guard (repeat: …). Write the reply to the person now." };
    const reply = await createDemoModel().complete({ messages: flattenForSummary([...messages, note]), tools: [] }, live());
    expect(reply.toolCalls).toEqual([]);
    expect(reply.content).toContain("I looked up the current time: Tuesday 14 January 2025, 14:04:05 in UTC");
    expect(reply.content).toContain("kept making the same current_time call with the same arguments (2 calls in all)");
  });

  it("says what came back instead of the time when its first call was denied", async () => {
    const messages: ChatMessage[] = [
      { role: "user", content: `${LOOP_REQUEST} What time is it in UTC?` },
      { role: "assistant", content: null, toolCalls: [{ id: "demo_1", name: "current_time", arguments: '{"timezone":"UTC"}' }] },
      { role: "tool", toolCallId: "demo_1", content: "Denied by ada: the person did not approve running current_time, so it did not run." },
    ];
    const reply = await createDemoModel().complete({ messages, tools: [] }, live());
    expect(reply.content).toMatch(/^I tried to look up the current time and got: Denied by ada: .* so it did not run\. Then I kept making/);
    expect(reply.content).not.toContain("I looked up the current time");
  });

  it("answers the next question of the conversation as usual", async () => {
    const earlier: ChatMessage[] = [
      { role: "user", content: `${LOOP_REQUEST} What time is it in UTC?` },
      { role: "assistant", content: "I looked up the current time … so I was stopped." },
      { role: "user", content: "what is 6*7" },
    ];
    const reply = await createDemoModel().complete({ messages: earlier, tools: TOOL_SCHEMAS }, live());
    expect(reply.toolCalls.map((call) => [call.name, call.arguments])).toEqual([["calculator", '{"expression":"6*7"}']]);
  });
});
