// The tokenizer's tables are built per encoding, on first use: a process counting in one
// encoding never builds another's (each costs ~15 MB), and a count made while the background
// build is under way counts what the finished tables count. Order matters in this file: the
// first test needs a process that has built nothing yet (each test file gets fresh modules).
import { getEncoding } from "js-tiktoken";
import { describe, expect, it } from "vitest";
import { toThreadContext } from "../../src/adapters/slack/thread-context.js";
import { say, ScriptedModel, call } from "../support/model-scripted.js";
import { TokenCounter } from "../../src/tokens/token-counter.js";
import { Tokenizer } from "../../src/tokens/tokenizer.js";
import { answered, runQuestion } from "../support/loop-harness.js";

const SAMPLES = [
  "hello world",
  "Grüße, 你好，世界！ 🎉🎉",
  "function f(x) { return x ** 2; } // comment\n\n\tindent",
  "<|endoftext|> is text here",
  "Привет, как дела? ".repeat(200),
  "a".repeat(900),
];

describe("tables for the encodings in use only", () => {
  it("a run, its thread context and the start's prepare with a cl100k model build cl100k's tables and no other", async () => {
    expect(Tokenizer.encodingsWithTables()).toEqual([]);
    const counter = TokenCounter.forModel("llama3.1:8b");
    expect(Tokenizer.encodingsWithTables()).toEqual([]);

    const model = new ScriptedModel([call("calculator", { expression: "6*7" }), say("It is 42.")]);
    const { outcome } = await runQuestion(model, "what is 6*7?", { modelName: "llama3.1:8b" });
    expect(answered(outcome).answer).toContain("42");
    const thread = toThreadContext(
      [{ ts: "1.000100", user: "U1", text: "the root of the thread" }],
      { channel: "C1", threadTs: "1.000100", beforeTs: "2.000100" },
      counter,
    );
    expect(thread).toHaveLength(1);
    expect(counter.truncate("word ".repeat(5_000), 100).truncated).toBe(true);
    await TokenCounter.prepare("llama3.1:8b");

    expect(Tokenizer.encodingsWithTables()).toEqual(["cl100k_base"]);
  });

  it("counts made while the background build is under way are the counts of the finished tables", async () => {
    expect(Tokenizer.encodingsWithTables()).not.toContain("o200k_base");
    let prepared = false;
    const preparing = TokenCounter.prepare("gpt-4o-mini").then(() => {
      prepared = true;
    });
    expect(Tokenizer.encodingsWithTables()).toContain("o200k_base");

    const early = TokenCounter.forModel("gpt-4o-mini");
    const earlyCounts = SAMPLES.map((text) => early.countText(text));
    const earlyCuts = SAMPLES.map((text) => early.truncate(text, 50));
    // The counts finished the build at once; the background build ends with those same tables afterwards.
    expect(prepared).toBe(false);
    await preparing;

    const late = TokenCounter.forModel("gpt-4o-mini");
    expect(SAMPLES.map((text) => late.countText(text))).toEqual(earlyCounts);
    expect(SAMPLES.map((text) => late.truncate(text, 50))).toEqual(earlyCuts);
    const reference = getEncoding("o200k_base");
    expect(earlyCounts).toEqual(SAMPLES.map((text) => reference.encode(text, [], []).length));
  });
});
