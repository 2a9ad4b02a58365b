import { createRequire } from "node:module";
import fc from "fast-check";
import { getEncoding } from "js-tiktoken";
import type { TiktokenBPE } from "js-tiktoken/lite";
import { afterEach, describe, expect, it, vi } from "vitest";
import { MAX_CHUNK_CHARS, Tokenizer } from "../../src/tokens/tokenizer.js";
import { buildPairRankTable } from "../../src/tokens/pair-rank-table.js";
import { TwoGenerationCache } from "../../src/tokens/two-generation-cache.js";
import { parseVocabulary } from "../../src/tokens/vocabulary.js";

function finish<T>(work: Generator<void, T>): T {
  for (;;) {
    const step = work.next();
    if (step.done) return step.value;
  }
}

const samples = [
  "",
  "hello world",
  '{"expression":"(3+4)*5"}',
  "  leading and trailing spaces   \n\n\tand tabs",
  "<|endoftext|> is a control token, <|fim_prefix|> too",
  "用户喜欢喝咖啡。日本語のテキストも。",
  "émojis 🎉🎉 and accents àéîõü, numbers 1234567 3.14159",
  "x".repeat(600),
  "CamelCaseIdentifiers and snake_case_names and kebab-case-names",
];

const cjk = (length: number, seed = 0) =>
  Array.from({ length }, (_, index) => String.fromCodePoint(0x4e00 + ((index * 7_919 + seed) % 20_000))).join("");

afterEach(() => {
  vi.restoreAllMocks();
});

describe.each(["o200k_base", "cl100k_base"] as const)("the byte-pair merge (%s)", (encoding) => {
  const tokenizer = Tokenizer.for(encoding);
  const reference = getEncoding(encoding);
  const exact = (text: string) => reference.encode(text, [], []);

  it("encodes exactly as js-tiktoken on known samples, and counts them exactly", () => {
    for (const text of samples) expect(tokenizer.encode(text)).toEqual(exact(text));
    for (const text of samples) expect(tokenizer.count(text)).toBe(exact(text).length);
    for (const text of samples) expect(tokenizer.count(text)).toBe(exact(text).length);
  });

  it("encodes exactly as js-tiktoken on random text", () => {
    const text = fc.oneof(
      fc.string({ unit: "grapheme", maxLength: 200 }),
      fc.string({ unit: "binary", maxLength: 200 }),
      fc.lorem({ maxCount: 30 }),
    );
    fc.assert(
      fc.property(text, (value) => {
        const tokens = exact(value);
        expect(tokenizer.encode(value)).toEqual(tokens);
        expect(tokenizer.count(value)).toBe(tokens.length);
      }),
      { numRuns: 300 },
    );
  });

  it("decodes what it encodes, and refuses a rank that is no token", () => {
    for (const text of samples) expect(tokenizer.decode(tokenizer.encode(text))).toBe(text);
    for (const bad of [-1, 1.5, 1_000_000, reference.encode("<|endoftext|>", "all")[0]!])
      expect(() => tokenizer.decode([bad])).toThrow(RangeError);
  });

  it("encodes a piece longer than a chunk exactly as js-tiktoken", () => {
    const piece = Array.from({ length: MAX_CHUNK_CHARS + 300 }, (_, index) => "etaoinshrdlu"[(index * 7 + (index >> 2)) % 12]).join("");
    expect(tokenizer.encode(piece)).toEqual(exact(piece));
  });
});

/** Long single pieces: what the issue measured, and the text kinds the bot meets. */
const longText = fc.oneof(
  fc.lorem({ mode: "sentences", maxCount: 80 }),
  fc
    .array(fc.constantFrom("const ", "value", " = ", "compute(", "x, y", ");\n", "  if (", "a === b", ") {\n", "}\n", "return ", "[]"), {
      minLength: 200,
      maxLength: 800,
    })
    .map((parts) => parts.join("")),
  fc.integer({ min: MAX_CHUNK_CHARS + 1, max: 6 * MAX_CHUNK_CHARS }).chain((length) => fc.nat().map((seed) => cjk(length, seed))),
  fc
    .array(fc.constantFrom("🎉", "👍🏽", "🇯🇵", "👨‍👩‍👧", "😀", "✨"), { minLength: MAX_CHUNK_CHARS, maxLength: 3 * MAX_CHUNK_CHARS })
    .map((parts) => parts.join("")),
  fc
    .array(fc.constantFrom(..."abcdefghijklmnopqrstuvwxyz"), { minLength: MAX_CHUNK_CHARS, maxLength: 8 * MAX_CHUNK_CHARS })
    .map((letters) => letters.join("")),
  // One letter repeated, then others: where a cut can also lose a token.
  fc
    .tuple(
      fc.constantFrom(..."aexzq"),
      fc.integer({ min: MAX_CHUNK_CHARS - 20, max: 4 * MAX_CHUNK_CHARS }),
      fc.stringMatching(/^[a-z]{0,30}$/),
    )
    .map(([letter, length, rest]) => letter.repeat(length) + rest),
  fc
    .array(
      fc.oneof(
        fc.lorem({ maxCount: 5 }),
        fc.integer({ min: 200, max: 3 * MAX_CHUNK_CHARS }).map((length) => cjk(length)),
      ),
      { maxLength: 6 },
    )
    .map((parts) => parts.join(" ")),
  // Longer than a segment of the pattern split, with and without line breaks to split at.
  fc
    .tuple(
      fc.lorem({ mode: "sentences", maxCount: 20 }),
      fc.integer({ min: 20, max: 60 }),
      fc.constantFrom(" ", "\n", "\n/", " \n ", "\r\n"),
    )
    .map(([sentences, times, separator]) => Array.from({ length: times }, () => sentences).join(separator)),
);

describe.each(["o200k_base", "cl100k_base"] as const)("bounded counting (%s)", (encoding) => {
  const tokenizer = Tokenizer.for(encoding);

  it("never counts less than the exact count, and at most 2 % more", () => {
    fc.assert(
      fc.property(longText, (text) => {
        const exact = tokenizer.encode(text).length;
        const counted = tokenizer.count(text);
        expect(counted).toBeGreaterThanOrEqual(exact);
        expect(counted).toBeLessThanOrEqual(Math.ceil(exact * 1.02));
      }),
      { numRuns: 60 },
    );
  });

  it("cuts to a prefix of at most the cap, and keeps text that fits whole", () => {
    fc.assert(
      fc.property(longText, fc.integer({ min: 1, max: 3_000 }), (text, cap) => {
        const cut = tokenizer.cut(text, cap);
        expect(text.startsWith(cut.text)).toBe(true);
        expect(cut.truncated).toBe(tokenizer.count(text) > cap);
        if (!cut.truncated) expect(cut.text).toBe(text);
        else expect(tokenizer.encode(cut.text).length).toBeLessThanOrEqual(cap);
      }),
      { numRuns: 60 },
    );
  });
});

describe("bounded work", () => {
  const tokenizer = Tokenizer.for("o200k_base");

  it("cuts a megabyte by encoding only about the prefix it keeps", () => {
    const text = cjk(340_000);
    const encodeInto = vi.spyOn(TextEncoder.prototype, "encodeInto");
    const cut = tokenizer.cut(text, 500);
    expect(cut.truncated).toBe(true);
    const encodedChars = encodeInto.mock.calls.reduce((sum, [unit]) => sum + unit.length, 0);
    expect(encodedChars).toBeLessThanOrEqual(cut.text.length + MAX_CHUNK_CHARS);
  });

  it("gives the event loop back while it counts a long text, and counts the same", async () => {
    const text = cjk(300_000, 7);
    let turns = 0;
    let ticking = true;
    const tick = () => {
      turns++;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    const counted = await tokenizer.countYielding(text);
    ticking = false;
    expect(turns).toBeGreaterThanOrEqual(5);
    expect(counted).toBe(tokenizer.count(text));
  });

  it("cuts the same way when it yields", async () => {
    const text = `${"word ".repeat(50_000)}${cjk(80_000)}`;
    expect(await tokenizer.cutYielding(text, 60_000)).toEqual(tokenizer.cut(text, 60_000));
  });
});

describe("the pair table", () => {
  it("answers every pair as js-tiktoken's byte-string table does, tokens and non-tokens alike", () => {
    const tables = getEncoding("cl100k_base") as unknown as { rankMap: Map<string, number>; textMap: Map<number, Uint8Array> };
    const ranks = createRequire(import.meta.url)("js-tiktoken/ranks/cl100k_base") as TiktokenBPE;
    const pairRank = finish(buildPairRankTable(finish(parseVocabulary(ranks.bpe_ranks))));
    const rank = fc.integer({ min: 0, max: tables.textMap.size - 1 });
    const bytesOf = (token: number) => [...tables.textMap.get(token)!];
    // Real merges (a token split in two) and arbitrary pairs, which are mostly no token.
    const split = rank
      .filter((token) => bytesOf(token).length > 1)
      .chain((token) => fc.integer({ min: 1, max: bytesOf(token).length - 1 }).map((at) => [token, at] as const));
    fc.assert(
      fc.property(fc.tuple(rank, rank), ([left, right]) => {
        expect(pairRank(left, right)).toBe(tables.rankMap.get([...bytesOf(left), ...bytesOf(right)].join(",")) ?? -1);
      }),
      { numRuns: 2_000 },
    );
    fc.assert(
      fc.property(split, ([token, at]) => {
        const left = tables.rankMap.get(bytesOf(token).slice(0, at).join(","));
        const right = tables.rankMap.get(bytesOf(token).slice(at).join(","));
        if (left === undefined || right === undefined) return;
        expect(pairRank(left, right)).toBe(token);
      }),
      { numRuns: 2_000 },
    );
  });
});

describe("the two-generation cache", () => {
  it("keeps at most twice its limits, and what is still read survives", () => {
    const cache = new TwoGenerationCache<number>(100, 1_000);
    cache.set("hot", 1);
    for (let index = 0; index < 1_000; index++) {
      cache.set(`key ${index}`, index);
      expect(cache.get("hot")).toBe(1);
    }
    expect(cache.get("key 0")).toBeUndefined();
    expect(cache.get("key 999")).toBe(999);
  });

  it("is bounded by the length of its keys, and does not keep a key longer than a generation", () => {
    const cache = new TwoGenerationCache<number>(1_000_000, 1_000);
    cache.set("x".repeat(1_001), 1);
    expect(cache.get("x".repeat(1_001))).toBeUndefined();
    for (let index = 0; index < 10; index++) cache.set(`${index}`.repeat(400), index);
    expect(cache.get("0".repeat(400))).toBeUndefined();
    expect(cache.get("9".repeat(400))).toBe(9);
  });
});
