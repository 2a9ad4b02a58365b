import { createRequire } from "node:module";
import { Tiktoken, type TiktokenBPE } from "js-tiktoken/lite";
import { describe, expect, it } from "vitest";
import { TokenCounter } from "../src/tokens/token-counter.js";
import { startEncoderBuild } from "../src/tokens/tokenizer-tables.js";

const require = createRequire(import.meta.url);
const SAMPLES = [
  "hello world",
  "Grüße, 你好，世界！ 🎉🎉",
  "function f(x) { return x ** 2; } // comment\n\n\tindent",
  "<|endoftext|> is text here",
  "a".repeat(300),
];

type Tables = { rankMap: Map<string, number>; textMap: Map<number, Uint8Array> };

describe("the rank tables built in slices", () => {
  for (const name of ["o200k_base", "cl100k_base"]) {
    it(`${name}: the same encoder as js-tiktoken's own constructor`, async () => {
      const ranks = require(`js-tiktoken/ranks/${name}`) as TiktokenBPE;
      const reference = new Tiktoken(ranks);
      const sliced = (await startEncoderBuild(ranks).done).encoder;
      const whole = startEncoderBuild(ranks).finishNow().encoder;
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
    await startEncoderBuild(ranks).done;
    building = false;
    expect(turns).toBeGreaterThan(20);
  });

  it("a count that can't wait finishes the build under way at once, and the background build then ends with that same encoder", async () => {
    const ranks = require("js-tiktoken/ranks/cl100k_base") as TiktokenBPE;
    const build = startEncoderBuild(ranks);
    const now = build.finishNow();
    expect(now.encoder.encode("hello world", [], [])).toEqual(new Tiktoken(ranks).encode("hello world", [], []));
    expect(await build.done).toBe(now);
  });

  it("a build that fails hands out no half-built table, to either caller", async () => {
    const unreadable = {
      pat_str: "\\w+",
      special_tokens: {},
      get bpe_ranks(): string {
        throw new Error("unreadable ranks");
      },
    } as unknown as TiktokenBPE;
    const build = startEncoderBuild(unreadable);
    expect(() => build.finishNow()).toThrow("unreadable ranks");
    await expect(build.done).rejects.toThrow("unreadable ranks");
  });

  it("a counter needs no tables until it counts; prepared tables count the same as ones built on demand", async () => {
    const counter = TokenCounter.forModel("gpt-4o-mini");
    await Promise.all([TokenCounter.prepare("gpt-4o-mini"), counter.whenReady()]);
    await counter.whenReady();
    const onDemand = TokenCounter.forModel("gpt-4");
    for (const text of SAMPLES) expect(counter.countText(text)).toBeGreaterThan(0);
    expect(counter.countText("hello world")).toBe(2);
    expect(onDemand.countText("hello world")).toBe(2);
  });
});
