import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Tokenizer } from "../src/agent/tokenizer.js";

const samples = [
  "",
  "hello world",
  '{"expression":"(3+4)*5"}',
  "  leading and trailing spaces   \n\n\tand tabs",
  "<|endoftext|> is a control token, <|fim_prefix|> too",
  "用户喜欢喝咖啡。日本語のテキストも。",
  "émojis 🎉🎉 and accents àéîõü, numbers 1234567 3.14159",
  "x".repeat(5_000),
  "CamelCaseIdentifiers and snake_case_names and kebab-case-names",
];

describe.each(["o200k_base", "cl100k_base"] as const)("counting by pieces (%s)", (encoding) => {
  const tokenizer = Tokenizer.for(encoding);

  it("matches the encoder exactly on known samples, cold and warm", () => {
    for (const text of samples) expect(tokenizer.count(text)).toBe(tokenizer.encode(text).length);
    for (const text of samples) expect(tokenizer.count(text)).toBe(tokenizer.encode(text).length);
  });

  it("matches the encoder exactly on random text", () => {
    const text = fc.oneof(fc.string({ unit: "grapheme", maxLength: 200 }), fc.string({ unit: "binary", maxLength: 200 }), fc.lorem({ maxCount: 30 }));
    fc.assert(
      fc.property(text, (value) => tokenizer.count(value) === tokenizer.encode(value).length),
      { numRuns: 300 },
    );
  });
});
