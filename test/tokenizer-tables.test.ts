import { createRequire } from "node:module";
import { Tiktoken, type TiktokenBPE } from "js-tiktoken/lite";
import { describe, expect, it } from "vitest";
import { TokenCounter } from "../src/agent/token-counter.js";
import { buildEncoder, buildEncoderInSlices } from "../src/agent/tokenizer-tables.js";

const require = createRequire(import.meta.url);
const SAMPLES = ["hello world", "Grüße, 你好，世界！ 🎉🎉", "function f(x) { return x ** 2; } // comment\n\n\tindent", "<|endoftext|> is text here", "a".repeat(300)];

type Tables = { rankMap: Map<string, number>; textMap: Map<number, Uint8Array> };

describe("the rank tables built in slices", () => {
  for (const name of ["o200k_base", "cl100k_base"]) {
    it(`${name}: the same encoder as js-tiktoken's own constructor`, async () => {
      const ranks = require(`js-tiktoken/ranks/${name}`) as TiktokenBPE;
      const reference = new Tiktoken(ranks);
      const sliced = await buildEncoderInSlices(ranks);
      const whole = buildEncoder(ranks);
      const tables = (encoder: Tiktoken) => encoder as unknown as Tables;
      for (const built of [sliced, whole]) {
        expect(tables(built).rankMap.size).toBe(tables(reference).rankMap.size);
        expect(tables(built).textMap.size).toBe(tables(reference).textMap.size);
        for (const text of SAMPLES) {
          const tokens = reference.encode(text, [], []);
          expect(built.encode(text, [], [])).toEqual(tokens);
          expect(built.decode(tokens)).toBe(text);
        }
      }
      // Every token maps to the same rank and back.
      for (const [key, rank] of tables(reference).rankMap) expect(tables(sliced).rankMap.get(key)).toBe(rank);
    });
  }

  it("hands the event loop back many times while it builds", async () => {
    const ranks = require("js-tiktoken/ranks/o200k_base") as TiktokenBPE;
    let turns = 0;
    let building = true;
    const tick = (): void => {
      turns++;
      if (building) setImmediate(tick);
    };
    setImmediate(tick);
    await buildEncoderInSlices(ranks);
    building = false;
    expect(turns).toBeGreaterThan(20);
  });

  it("a counter needs no tables until it counts; prepared tables count the same as ones built on demand", async () => {
    const counter = TokenCounter.forModel("gpt-4o-mini");
    await TokenCounter.prepare("gpt-4o-mini");
    await TokenCounter.prepare("gpt-4o-mini");
    const onDemand = TokenCounter.forModel("gpt-4");
    for (const text of SAMPLES) expect(counter.countText(text)).toBeGreaterThan(0);
    expect(counter.countText("hello world")).toBe(2);
    expect(onDemand.countText("hello world")).toBe(2);
  });
});
