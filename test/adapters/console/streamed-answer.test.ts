// The console prints what the model writes as it comes, through the real console surface and
// service with a model that streams word by word: the first words show while the model is still
// writing, the answer is printed once; the model's words before a tool call show before the
// tool's line and are not repeated; Ctrl-C mid-answer keeps what was printed and adds the stop line.
import { afterEach, describe, expect, it } from "vitest";
import { startConsole, type ConsoleHarness } from "../../support/console-harness.js";
import { ScriptedModel, say } from "../../support/model-scripted.js";
import { streamingModel } from "../../support/streaming-model.js";

let harness: ConsoleHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const LONG = "Paris is the capital of France, and it has been for a very long time, through kings, empires and republics alike.";
const occurrences = (text: string, part: string) => text.split(part).length - 1;

describe("the console prints the answer as it is written", () => {
  it("shows the first words while the model still writes, and the answer once", async () => {
    const model = streamingModel(new ScriptedModel([say(LONG)]), { pieceMs: 40 });
    harness = await startConsole({ model });
    harness.type("what is the capital of France?");
    await harness.waitFor("Paris is the capital");
    expect(harness.text()).not.toContain("republics alike.");
    await harness.waitFor("republics alike.");
    await harness.waitFor("> ");
    expect(occurrences(harness.text(), "Paris is the capital")).toBe(1);
  });

  it("prints the model's words before a tool call ahead of its line, and not again in the answer", async () => {
    const script = new ScriptedModel([
      { text: "Let me work that out.", calls: [{ name: "calculator", args: { expression: "6*7" } }] },
      say("It is 42."),
    ]);
    harness = await startConsole({ model: streamingModel(script) });
    harness.type("what is 6*7?");
    await harness.waitFor("It is 42.");
    const text = harness.text();
    expect(occurrences(text, "Let me work that out.")).toBe(1);
    expect(text.indexOf("Let me work that out.")).toBeLessThan(text.indexOf("calculator("));
    expect(text.indexOf("calculator(")).toBeLessThan(text.indexOf("It is 42."));
  });

  it("keeps what was printed when Ctrl-C stops the answer, and adds the stop line", async () => {
    const script = new ScriptedModel([say(LONG)], { whenExhausted: say("A summary nobody should see.") });
    harness = await startConsole({ model: streamingModel(script, { pieceMs: 60 }), terminal: true });
    harness.type("what is the capital of France?");
    const started = await harness.waitFor("Paris is the capital");
    harness.press("\x03");
    await harness.waitFor("(Stopped by ada.)", started);
    const text = harness.text();
    expect(text).not.toContain("republics alike.");
    expect(text).not.toContain("A summary nobody should see.");
    expect(occurrences(text, "Paris is the capital")).toBe(1);
  });
});
