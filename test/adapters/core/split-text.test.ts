import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MIN_SPLIT_CHARS, splitText } from "../../../src/adapters/core/split-text.js";

const fenceCount = (text: string) => text.match(/```/g)?.length ?? 0;
const nonWhitespace = (text: string) => text.replace(/\s+/g, "");

/** True when every character of `needle` appears in `haystack` in the same order. */
function isSubsequence(needle: string, haystack: string): { ok: boolean; leftover: string } {
  let at = 0;
  let leftover = "";
  for (const char of haystack) {
    if (at < needle.length && needle.startsWith(char, at)) at += char.length;
    else leftover += char;
  }
  return { ok: at === needle.length, leftover };
}

describe("splitText", () => {
  it("returns short text as one part, untouched", () => {
    expect(splitText("hello world", 2000)).toEqual(["hello world"]);
  });

  it("returns nothing for empty or all-whitespace text", () => {
    expect(splitText("", 100)).toEqual([]);
    expect(splitText(" \n\t\n ", 100)).toEqual([]);
  });

  it("splits at line boundaries first", () => {
    const lines = Array.from({ length: 10 }, (_, index) => `line number ${index} ${"x".repeat(20)}`);
    const parts = splitText(lines.join("\n"), 100);
    expect(parts.length).toBeGreaterThan(1);
    for (const part of parts) {
      expect(part.length).toBeLessThanOrEqual(100);
      for (const line of part.split("\n")) expect(lines).toContain(line);
    }
    expect(parts.join("\n")).toBe(lines.join("\n"));
  });

  it("splits a long line at word boundaries", () => {
    const words = Array.from({ length: 60 }, (_, index) => `word${index}`);
    const parts = splitText(words.join(" "), 60);
    expect(parts.length).toBeGreaterThan(1);
    for (const part of parts) {
      expect(part.length).toBeLessThanOrEqual(60);
      for (const word of part.split(" ")) expect(words).toContain(word);
    }
    expect(parts.join(" ")).toBe(words.join(" "));
  });

  it("cuts a single word only when it is longer than the limit", () => {
    const word = "a".repeat(250);
    const parts = splitText(`short ${word} end`, 100);
    expect(parts.every((part) => part.length <= 100)).toBe(true);
    expect(nonWhitespace(parts.join(""))).toBe(nonWhitespace(`short ${word} end`));
    expect(parts[0]!.startsWith("short a")).toBe(true);
    expect(parts.at(-1)!.endsWith("a end")).toBe(true);
    expect(parts.join("")).toBe(`short ${word} end`);
  });

  it("never splits a surrogate pair", () => {
    const text = "😀".repeat(100);
    const parts = splitText(text, 45);
    expect(parts.length).toBeGreaterThan(1);
    expect(parts.every(isWellFormed)).toBe(true);
    expect(parts.join("")).toBe(text);
  });

  it("closes a code block at the end of a part and reopens it with its language", () => {
    const code = Array.from({ length: 30 }, (_, index) => `  const value${index} = ${index};`);
    const text = ["Here is the code:", "```ts", ...code, "```", "Done."].join("\n");
    const parts = splitText(text, 200);
    expect(parts.length).toBeGreaterThan(2);
    expect(parts[0]!.startsWith("Here is the code:\n```ts\n")).toBe(true);
    expect(parts[0]!.endsWith("\n```")).toBe(true);
    for (const part of parts.slice(1, -1)) {
      expect(part.startsWith("```ts\n  const value")).toBe(true);
      expect(part.endsWith("\n```")).toBe(true);
    }
    expect(parts.at(-1)!.endsWith("```\nDone.")).toBe(true);
    for (const part of parts) {
      expect(part.length).toBeLessThanOrEqual(200);
      expect(fenceCount(part) % 2).toBe(0);
    }
  });

  it("keeps the indentation of code lines that start a part", () => {
    const code = Array.from({ length: 20 }, (_, index) => `    indented(${index});`);
    const parts = splitText(["```", ...code, "```"].join("\n"), 120);
    for (const part of parts.slice(1)) expect(part.startsWith("```\n    indented(")).toBe(true);
  });

  it("closes a code block the text left open", () => {
    const parts = splitText("```js\nlet a = 1;", 100);
    expect(parts).toEqual(["```js\nlet a = 1;\n```"]);
  });

  it("reopens without a language when the tag is not a plain word", () => {
    const code = Array.from({ length: 12 }, (_, index) => `row ${index} ${"y".repeat(20)}`);
    const parts = splitText(["```not a language", ...code, "```"].join("\n"), 120);
    expect(parts.length).toBeGreaterThan(1);
    expect(parts[1]!.startsWith("```\nrow")).toBe(true);
  });

  it("does not count inline code as a block", () => {
    const lines = Array.from({ length: 12 }, (_, index) => `use \`\`\`inline ${index}\`\`\` here ${"z".repeat(20)}`);
    const parts = splitText(lines.join("\n"), 100);
    for (const part of parts) expect(part.startsWith("use ")).toBe(true);
  });

  it("rejects a limit too small to hold a reopened block", () => {
    expect(() => splitText("text", MIN_SPLIT_CHARS - 1)).toThrow(RangeError);
    expect(() => splitText("text", 100.5)).toThrow(RangeError);
  });

  it("splits the way Discord needs at its 2,000 characters", () => {
    const text = `${"paragraph ".repeat(300)}\n\`\`\`python\n${"print('x')\n".repeat(300)}\`\`\``;
    const parts = splitText(text, 2000);
    expect(parts.length).toBeGreaterThan(2);
    expect(parts.every((part) => part.length <= 2000 && fenceCount(part) % 2 === 0)).toBe(true);
  });

  const chunk = fc.oneof(
    { arbitrary: fc.constantFrom("```", "```ts", "```python\n", "``", "`", "````", "\n", " ", "  ", "\n\n", "😀"), weight: 2 },
    { arbitrary: fc.string({ unit: fc.constantFrom("a", "b", "c", " ", "\n", "`", "é"), maxLength: 30 }), weight: 3 },
    { arbitrary: fc.string({ unit: fc.constantFrom("x", "y", "z"), minLength: 30, maxLength: 300 }), weight: 1 },
  );
  const markdown = fc.array(chunk, { maxLength: 60 }).map((chunks) => chunks.join(""));

  it("holds its contract for any text (property)", () => {
    fc.assert(
      fc.property(markdown, fc.integer({ min: MIN_SPLIT_CHARS, max: 300 }), (text, maxChars) => {
        const parts = splitText(text, maxChars);
        if (nonWhitespace(text) !== "") expect(parts.length).toBeGreaterThan(0);
        for (const part of parts) {
          expect(part.length).toBeLessThanOrEqual(maxChars);
          expect(fenceCount(part) % 2).toBe(0);
          expect(part.trim()).not.toBe("");
        }
        const { ok, leftover } = isSubsequence(nonWhitespace(text), nonWhitespace(parts.join("")));
        expect(ok).toBe(true);
        expect(leftover).toMatch(/^[`\w+#.-]*$/);
      }),
      { numRuns: 500 },
    );
  });

  it("adds nothing to text that needs no split (property)", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom("a", " ", "\n", "b"), maxLength: 100 }), (text) => {
        const parts = splitText(text, 200);
        expect(parts).toEqual(text.trim() === "" ? [] : [text.replace(/^\s*\n/, "").trimEnd()]);
      }),
    );
  });
});

function isWellFormed(text: string): boolean {
  return !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text);
}
