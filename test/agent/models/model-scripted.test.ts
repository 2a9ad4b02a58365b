import { describe, expect, it } from "vitest";
import { call, calls, say, ScriptedModel } from "../../support/model-scripted.js";
import type { ChatMessage, ModelRequest } from "../../../src/contracts/types.js";

const live = () => new AbortController().signal;
const request = (text: string): ModelRequest => ({ messages: [{ role: "user", content: text }], tools: [] });

describe("ScriptedModel", () => {
  it("plays one scripted reply per call, in order", async () => {
    const model = new ScriptedModel([call("calculator", { expression: "1+1" }), say("two", { promptTokens: 5, completionTokens: 1 })]);
    expect(await model.complete(request("a"), live())).toEqual({
      content: null,
      toolCalls: [{ id: "call_1", name: "calculator", arguments: '{"expression":"1+1"}' }],
    });
    expect(await model.complete(request("b"), live())).toEqual({
      content: "two",
      toolCalls: [],
      usage: { promptTokens: 5, completionTokens: 1 },
    });
    expect(model.remaining).toBe(0);
  });

  it("generates unique call ids across replies and keeps given ids and raw string arguments", async () => {
    const model = new ScriptedModel([calls(call("a", {}), call("b", "{not json", "mine")), call("a", { x: 1 })]);
    const first = await model.complete(request("a"), live());
    const second = await model.complete(request("b"), live());
    expect(first.toolCalls.map((c) => [c.id, c.arguments])).toEqual([
      ["call_1", "{}"],
      ["mine", "{not json"],
    ]);
    expect(second.toolCalls[0]!.id).toBe("call_3");
  });

  it("records every request with its own copy of the messages", async () => {
    const model = new ScriptedModel([say("ok")]);
    const messages: ChatMessage[] = [{ role: "user", content: "hello" }];
    await model.complete({ messages, tools: [] }, live());
    messages.push({ role: "assistant", content: "later" });
    expect(model.requests).toHaveLength(1);
    expect(model.requests[0]!.messages).toEqual([{ role: "user", content: "hello" }]);
  });

  it("builds a reply from what it was sent when the step is a function", async () => {
    const model = new ScriptedModel([(sent, index) => say(`${index}:${sent.messages.at(-1)?.content}`)]);
    expect((await model.complete(request("echo me"), live())).content).toBe("0:echo me");
  });

  it("rejects with a clear error once the script is exhausted", async () => {
    const model = new ScriptedModel([say("only one")], { name: "short" });
    await model.complete(request("a"), live());
    await expect(model.complete(request("b"), live())).rejects.toThrow(
      'ScriptedModel "short": the script has 1 replies and call 2 asked for another',
    );
  });

  it("uses whenExhausted for every call after the script", async () => {
    const model = new ScriptedModel([], { whenExhausted: (_, index) => say(`fallback ${index}`) });
    expect((await model.complete(request("a"), live())).content).toBe("fallback 0");
    expect((await model.complete(request("b"), live())).content).toBe("fallback 1");
  });

  it("rejects with a scripted error", async () => {
    const model = new ScriptedModel([{ error: new Error("server down") }]);
    await expect(model.complete(request("a"), live())).rejects.toThrow("server down");
  });

  it("waits delayMs before answering", async () => {
    const model = new ScriptedModel([{ text: "late", delayMs: 5 }]);
    expect((await model.complete(request("a"), live())).content).toBe("late");
  });

  it("rejects with the abort reason during a delay", async () => {
    const model = new ScriptedModel([{ text: "too late", delayMs: 60_000 }]);
    const controller = new AbortController();
    const pending = model.complete(request("a"), controller.signal);
    const reason = new Error("deadline");
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
  });

  it("never settles a `never` reply until aborted", async () => {
    const model = new ScriptedModel([{ never: true }]);
    const controller = new AbortController();
    let settled = false;
    const pending = model.complete(request("a"), controller.signal).finally(() => (settled = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });
  });

  it("rejects at once when the signal is already aborted, and still records the request", async () => {
    const model = new ScriptedModel([say("unused")]);
    const controller = new AbortController();
    controller.abort();
    await expect(model.complete(request("a"), controller.signal)).rejects.toMatchObject({ name: "AbortError" });
    expect(model.requests).toHaveLength(1);
  });
});
