// Splitting a text that grows at its end into chat-sized parts: sealed parts never change as the
// text grows, the live part is the last, code blocks are closed and reopened across parts, and
// the parts of the whole text hold splitText's contract.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { grow, UNSPLIT, type GrowingSplit } from "../../../src/adapters/core/growing-split.js";

const LIMIT = 120;

/** Feeds `text` in pieces of `size`, checking that no sealed part ever changes; the parts at the end. */
function growInPieces(text: string, size: number): readonly string[] {
  let split: GrowingSplit = UNSPLIT;
  let parts: readonly string[] = [];
  for (let end = size; ; end += size) {
    const grown = grow(split, text.slice(0, Math.min(end, text.length)), LIMIT)!;
    expect(grown.parts.slice(0, split.sealed.length)).toEqual(split.sealed);
    ({ split, parts } = grown);
    if (end >= text.length) return parts;
  }
}

describe("grow", () => {
  it("keeps a short text in one live part", () => {
    expect(grow(UNSPLIT, "It is noon.", LIMIT)).toEqual({ split: UNSPLIT, parts: ["It is noon."] });
  });

  it("seals a part once the text moves on to the next one, and never changes it after", () => {
    const lines = Array.from({ length: 12 }, (_, index) => `Line ${index} of the answer, long enough.`).join("\n");
    const parts = growInPieces(lines, 7);
    expect(parts.length).toBeGreaterThan(2);
    for (const part of parts) expect(part.length).toBeLessThanOrEqual(LIMIT);
    expect(parts.join("\n")).toBe(lines);
  });

  it("closes a code block at the end of a sealed part and reopens it with its language in the next", () => {
    const code = ["```ts", ...Array.from({ length: 10 }, (_, index) => `const value${index} = ${index};`), "```"].join("\n");
    const parts = growInPieces(`Here:\n${code}\nDone.`, 5);
    expect(parts.length).toBeGreaterThan(1);
    for (const part of parts) expect((part.match(/```/g) ?? []).length % 2).toBe(0);
    expect(parts[1]!.startsWith("```ts\n")).toBe(true);
  });

  it("says so when the text no longer starts with what was sealed (it was written over)", () => {
    const grown = grow(UNSPLIT, `${"word ".repeat(60)}end`, LIMIT)!;
    expect(grown.split.sealed.length).toBeGreaterThan(0);
    expect(grow(grown.split, "Something else entirely", LIMIT)).toBeUndefined();
  });

  it("holds a part's length, balanced code blocks and every word, whatever the pieces (property)", () => {
    const words = fc.constantFrom("alpha", "beta", "```", "```py", "\n", "\n\n", " ", "gamma-delta-epsilon", "x".repeat(130));
    fc.assert(
      fc.property(fc.array(words, { maxLength: 80 }), fc.integer({ min: 1, max: 40 }), (chosen, size) => {
        const text = chosen.join(" ");
        const parts = growInPieces(text, size);
        for (const part of parts) {
          expect(part.length).toBeLessThanOrEqual(LIMIT);
          expect((part.match(/```/g) ?? []).length % 2).toBe(0);
        }
        const letters = (value: string) => value.replace(/```[\w+#.-]*|\s/g, "");
        expect(letters(parts.join("\n"))).toBe(letters(text));
      }),
      { numRuns: 200 },
    );
  });
});
