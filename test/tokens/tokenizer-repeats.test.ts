// Runs of one repeated character are where equal-rank merges tie: the byte-pair merge must take
// the leftmost of equal ranks first, as tiktoken does, or odd runs (17 × "-") count differently.
// Every printable ASCII character and a few multi-byte ones, every length 1–40, both encodings.
import { getEncoding } from "js-tiktoken";
import { describe, expect, it } from "vitest";
import { Tokenizer } from "../../src/tokens/tokenizer.js";

const printableAscii = Array.from({ length: 0x7f - 0x20 }, (_, index) => String.fromCharCode(0x20 + index));
const characters = [...printableAscii, "\n", "\t", "é", "ß", "中", "—", "…", "🎉"];
const LENGTHS = Array.from({ length: 40 }, (_, index) => index + 1);

describe.each(["o200k_base", "cl100k_base"] as const)("runs of one character (%s)", (encoding) => {
  const tokenizer = Tokenizer.for(encoding);
  const reference = getEncoding(encoding);

  it("encode and count exactly as js-tiktoken at every length from 1 to 40", () => {
    const differing: string[] = [];
    for (const character of characters)
      for (const length of LENGTHS) {
        const text = character.repeat(length);
        const exact = reference.encode(text, [], []);
        const ours = tokenizer.encode(text);
        if (JSON.stringify(ours) !== JSON.stringify(exact) || tokenizer.count(text) !== exact.length)
          differing.push(`${length} × ${JSON.stringify(character)}: ${ours.length} tokens, js-tiktoken ${exact.length}`);
      }
    expect(differing).toEqual([]);
  });
});
