// The offline demo model streams when asked for pieces: its text word by word, its calls whole,
// all before the reply, which is the one it gives without streaming.
import { describe, expect, it } from "vitest";
import { createDemoModel } from "../../../src/agent/models/model-demo.js";
import type { ModelDelta, ModelRequest } from "../../../src/contracts/types.js";

const live = () => new AbortController().signal;
const tools = [
  { name: "calculator", description: "math", parameters: { type: "object" } },
  { name: "current_time", description: "time", parameters: { type: "object" } },
];

async function streamedAndWhole(request: ModelRequest) {
  const deltas: ModelDelta[] = [];
  const model = createDemoModel();
  const streamed = await model.complete({ ...request, onDelta: (delta) => deltas.push(delta) }, live());
  return { deltas, streamed, whole: await model.complete(request, live()) };
}

describe("the demo model, asked for pieces", () => {
  it("streams its answer word by word, each word with the space before it, adding up to the reply's text", async () => {
    const { deltas, streamed, whole } = await streamedAndWhole({ messages: [{ role: "user", content: "write me a poem" }], tools });
    expect(streamed).toEqual(whole);
    const words = deltas.map((delta) => (delta.kind === "text" ? delta.text : ""));
    expect(words.join("")).toBe(streamed.content);
    expect(words.length).toBe(streamed.content!.split(/\s+/).length);
    expect(words.slice(0, 3)).toEqual(["I", " am", " the"]);
  });

  it("streams a tool call as one piece with its id, name and arguments", async () => {
    const { deltas, streamed } = await streamedAndWhole({ messages: [{ role: "user", content: "what is 6*7" }], tools });
    expect(deltas).toEqual([
      { kind: "tool_call", index: 0, id: streamed.toolCalls[0]!.id, name: "calculator", arguments: '{"expression":"6*7"}' },
    ]);
  });
});
