// The loop asks every step's model call for its pieces and shows its text as it streams: each
// piece a text_delta (step, the new piece), a failed try's restart a text_restart, in order and
// before the step's model_replied; tool-call fragments make no event. The answer is the last
// step's streamed text; a Stop mid-stream cancels the model request at once.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { stoppedByStop } from "../../../src/agent/guards/external-stops.js";
import { runAgent } from "../../../src/agent/loop/loop.js";
import type { AgentEvent } from "../../../src/contracts/types.js";
import { startFakeOpenAI, textReply, toolCallReply, type FakeOpenAI } from "../../support/fake-openai-server.js";
import { openAIClient } from "../../support/openai-client.js";
import { answered, consoleOrigin, loopDeps, runQuestion } from "../../support/loop-harness.js";
import { ScriptedModel } from "../../support/model-scripted.js";

type Streamed = Extract<AgentEvent, { type: "text_delta" | "text_restart" }>;

const isStreamed = (event: AgentEvent): event is Streamed => event.type === "text_delta" || event.type === "text_restart";

/** The text step `step` streamed since its last restart. */
function streamedText(events: readonly AgentEvent[], step: number): string {
  let text = "";
  for (const event of events.filter(isStreamed).filter((streamed) => streamed.step === step))
    text = event.type === "text_restart" ? "" : text + event.text;
  return text;
}

/** Where each step's model_replied comes among the events. */
function repliedAt(events: readonly AgentEvent[], step: number): number {
  return events.findIndex((event) => event.type === "model_replied" && event.step === step);
}

describe("the loop with a streaming model", () => {
  it("turns the pieces into text_delta and a failed try's restart into text_restart, in order, before model_replied; the answer is the text after the restart", async () => {
    const model = new ScriptedModel([{ falseStart: "I think it is", text: "The answer is 42." }]);
    const { outcome, events } = await runQuestion(model, "what is the answer");

    expect(events.filter(isStreamed).map((event) => (event.type === "text_delta" ? event.text : "<restart>"))).toEqual([
      "I",
      " think",
      " it",
      " is",
      "<restart>",
      "The",
      " answer",
      " is",
      " 42.",
    ]);
    expect(events.filter(isStreamed).every((event) => event.runId === "run-1" && event.step === 1)).toBe(true);
    expect(events.map(isStreamed).lastIndexOf(true)).toBeLessThan(repliedAt(events, 1));
    expect(answered(outcome).answer).toBe(streamedText(events, 1));
  });

  it("streams the reply's text exactly (model_replied carries the same), and the answer is that text trimmed, as without streaming", async () => {
    const model = new ScriptedModel([{ text: "\n Spaced answer. \n" }]);
    const { outcome, events } = await runQuestion(model, "answer with spaces");
    const replied = events.find((event) => event.type === "model_replied");
    expect(streamedText(events, 1)).toBe("\n Spaced answer. \n");
    expect(replied?.type === "model_replied" && replied.text).toBe(streamedText(events, 1));
    expect(answered(outcome).answer).toBe(streamedText(events, 1).trim());
  });

  it("makes no event of tool-call fragments", async () => {
    const model = new ScriptedModel([{ calls: [{ name: "calculator", args: { expression: "2+2" } }] }, { text: "4" }]);
    const { events } = await runQuestion(model, "2+2");
    expect(events.filter(isStreamed).map((event) => [event.step, event.type])).toEqual([[2, "text_delta"]]);
  });
});

describe("the loop with the real client against a streaming server", () => {
  let server: FakeOpenAI;
  beforeEach(async () => {
    server = await startFakeOpenAI();
  });
  afterEach(async () => {
    await server.close();
  });

  const model = () => openAIClient(server.baseUrl, { maxRetries: 0 });

  it("streams the text a step writes before its tool call, then the answer step's text, which is the answer", async () => {
    server.enqueue(
      toolCallReply([{ id: "call_1", name: "calculator", args: { expression: "(3+4)*5" } }], undefined, "Let me work that out first."),
      textReply("(3+4)*5 is 35, as the calculator says."),
    );
    const { outcome, events } = await runQuestion(model(), "what is (3+4)*5");

    expect(streamedText(events, 1)).toBe("Let me work that out first.");
    expect(streamedText(events, 2)).toBe("(3+4)*5 is 35, as the calculator says.");
    expect(events.filter((event) => isStreamed(event) && event.step === 1).length).toBeGreaterThan(1);
    const firstCall = events.findIndex((event) => event.type === "tool_called");
    expect(events.findIndex(isStreamed)).toBeLessThan(repliedAt(events, 1));
    expect(repliedAt(events, 1)).toBeLessThan(firstCall);
    expect(answered(outcome).answer).toBe(streamedText(events, 2));
    expect(answered(outcome).answer).not.toContain("Let me work that out first.");
  });

  it("cancels the model request at once on a Stop mid-stream: the server sees the connection closed, the run ends stopped", async () => {
    server.enqueue({ ...textReply("I will be thinking about this for a long while."), pace: { afterChunks: 3 } }, textReply("What I had."));
    const events: AgentEvent[] = [];
    let streaming: () => void = () => {};
    const firstPiece = new Promise<void>((resolve) => (streaming = resolve));
    const stop = new AbortController();
    const running = runAgent(
      { runId: "run-stop", origin: consoleOrigin, question: "think long", context: [] },
      loopDeps(model()),
      (event) => {
        events.push(event);
        if (event.type === "text_delta") streaming();
      },
      { stop: stop.signal },
    );
    await firstPiece;
    stop.abort(stoppedByStop({ id: "alice", name: "Alice" }));

    await server.waitForCancelled(1);
    const { outcome } = await running;
    expect(outcome).toMatchObject({ status: "answered", stop: { guard: "stopped", sentence: "Stopped by Alice." } });
    expect(repliedAt(events, 1)).toBe(-1);
    expect(streamedText(events, 1)).toBe("I will be thinking about this for a long while.".slice(0, streamedText(events, 1).length));
  });
});
