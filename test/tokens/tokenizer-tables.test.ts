import { createRequire } from "node:module";
import { Tiktoken, type TiktokenBPE } from "js-tiktoken/lite";
import { describe, expect, it } from "vitest";
import { TokenCounter } from "../../src/tokens/token-counter.js";
import { bytePairEncode } from "../../src/tokens/byte-pair-merge.js";
import { startEncoderBuild } from "../../src/tokens/tokenizer-tables.js";
import type { Vocabulary } from "../../src/tokens/vocabulary.js";

const require = createRequire(import.meta.url);
const SAMPLES = [
  "hello world",
  "Grüße, 你好，世界！ 🎉🎉",
  "function f(x) { return x ** 2; } // comment\n\n\tindent",
  "<|endoftext|> is text here",
  "a".repeat(300),
];

type Tables = { rankMap: Map<string, number>; textMap: Map<number, Uint8Array> };
const tablesOf = (encoder: Tiktoken) => encoder as unknown as Tables;
const utf8 = new TextEncoder();
const bytesOf = ({ spans, bytes }: Vocabulary, rank: number) => bytes.subarray(spans[2 * rank]!, spans[2 * rank]! + spans[2 * rank + 1]!);

describe("the rank tables built in slices", () => {
  for (const name of ["o200k_base", "cl100k_base"]) {
    it(`${name}: the same vocabulary as js-tiktoken's own constructor, and the same encoding`, async () => {
      const ranks = require(`js-tiktoken/ranks/${name}`) as TiktokenBPE;
      const reference = new Tiktoken(ranks);
      const { rankMap, textMap } = tablesOf(reference);
      const sliced = await startEncoderBuild(ranks).done;
      const whole = startEncoderBuild(ranks).finishNow();
      for (const built of [sliced, whole]) {
        expect(built.vocabulary.size).toBe(textMap.size);
        // Every token has the same bytes at the same rank (compared in a plain loop: 200,000 expects take a minute).
        const differing = [...textMap].filter(([rank, bytes]) => !Buffer.from(bytes).equals(bytesOf(built.vocabulary, rank)));
        expect(differing).toEqual([]);
        for (let byte = 0; byte < 256; byte++) expect(built.byteRanks[byte]).toBe(rankMap.get(String(byte)) ?? -1);
        for (const text of SAMPLES) {
          const tokens: number[] = [];
          for (const [piece] of text.matchAll(new RegExp(ranks.pat_str, "gu")))
            bytePairEncode(utf8.encode(piece), built.byteRanks, built.pairRank, tokens);
          expect(tokens).toEqual(reference.encode(text, [], []));
        }
      }
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
    // The build takes tens of milliseconds (hundreds with js-tiktoken's tables) in slices of about 5.
    expect(turns).toBeGreaterThan(5);
  });

  it("a count that can't wait finishes the build under way at once, and the background build then ends with that same encoder", async () => {
    const ranks = require("js-tiktoken/ranks/cl100k_base") as TiktokenBPE;
    const build = startEncoderBuild(ranks);
    const now = build.finishNow();
    const tokens: number[] = [];
    for (const piece of ["hello", " world"]) bytePairEncode(utf8.encode(piece), now.byteRanks, now.pairRank, tokens);
    expect(tokens).toEqual(new Tiktoken(ranks).encode("hello world", [], []));
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

  it.each([
    ["a token that is not base64", "x 0 IQ== I*g== Iw=="],
    ["a first rank that is not a number", "x zero IQ== Ig=="],
    ["a rank beyond any vocabulary", "x 99999999 IQ=="],
  ])("refuses a rank file with %s, naming the problem", async (_, bpeRanks) => {
    const build = startEncoderBuild({ pat_str: "\\w+", special_tokens: {}, bpe_ranks: bpeRanks });
    expect(() => build.finishNow()).toThrow(/^js-tiktoken's rank file is not in the format the tokenizer reads \(.+\)/);
    await expect(build.done).rejects.toThrow(/rank file/);
  });

  it("reads ranks in any order and with gaps: a missing rank is no token", async () => {
    // "!" = IQ==, '"' = Ig==, "#" = Iw==, "!!" = ISE=
    const { vocabulary, byteRanks, pairRank } = startEncoderBuild({
      pat_str: "\\S+",
      special_tokens: {},
      bpe_ranks: "x 5 ISE=\nx 0 IQ== Ig==\nx 3 Iw==",
    }).finishNow();
    expect(vocabulary.size).toBe(6);
    expect([...bytesOf(vocabulary, 5)]).toEqual([0x21, 0x21]);
    expect(bytesOf(vocabulary, 2)).toHaveLength(0);
    expect([byteRanks[0x21], byteRanks[0x22], byteRanks[0x23], byteRanks[0x24]]).toEqual([0, 1, 3, -1]);
    expect(pairRank(0, 0)).toBe(5);
    expect(pairRank(0, 1)).toBe(-1);
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
