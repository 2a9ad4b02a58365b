// What a run keeps of the texts it read from others, for its writes' origins: bounded, so a huge
// tool result or hundreds of reads can't make its checkpoint huge (issue 39, item 2).
import { describe, expect, it } from "vitest";
import {
  keepSeen,
  SEEN_MAX_TEXTS,
  SEEN_TEXT_MAX_CHARS,
  SEEN_TOTAL_MAX_CHARS,
  SeenSourcesSchema,
} from "../../../src/agent/context/seen-sources.js";
import type { SourcedText } from "../../../src/contracts/provenance.js";

const tool = (text: string, name = "read_channel"): SourcedText => ({ source: { kind: "tool", tool: name }, text });

describe("keepSeen", () => {
  it("keeps texts from others in order, not the requester's own, not an empty one, not the same one twice", () => {
    const kept = keepSeen(
      [tool("first")],
      [
        { source: { kind: "requester", person: { id: "alice" } }, text: "mine" },
        tool("  "),
        tool("first"),
        tool("first", "other"),
        tool("second"),
      ],
    );
    expect(kept).toEqual([tool("first"), tool("first", "other"), tool("second")]);
  });

  it("stores every kind of source, text the bot derived from others' included (a run reloaded after a pause)", () => {
    const kept = [
      { source: { kind: "derived", from: "answer" }, text: "an earlier answer" },
      { source: { kind: "memory" }, text: "a fact" },
      { source: { kind: "person", author: { id: "U6", name: "mallory" }, channel: "this conversation" }, text: "their question" },
    ];
    expect(SeenSourcesSchema.parse(JSON.parse(JSON.stringify(kept)))).toEqual(kept);
  });

  it("cuts a huge text to its bound", () => {
    const [kept] = keepSeen([], [tool("x".repeat(SEEN_TEXT_MAX_CHARS * 3))]);
    expect(kept!.text).toHaveLength(SEEN_TEXT_MAX_CHARS);
  });

  it("drops the oldest texts past the total and the count, and what it keeps passes the stored schema", () => {
    const big = Array.from({ length: 20 }, (_, index) => tool(`${index}`.padEnd(SEEN_TEXT_MAX_CHARS, "y")));
    const byChars = keepSeen([], big);
    expect(byChars.reduce((sum, item) => sum + item.text.length, 0)).toBeLessThanOrEqual(SEEN_TOTAL_MAX_CHARS);
    expect(byChars.at(-1)).toEqual(big.at(-1));
    expect(byChars[0]!.text.startsWith("10")).toBe(true);
    const byCount = keepSeen(
      [],
      Array.from({ length: SEEN_MAX_TEXTS + 7 }, (_, index) => tool(`text ${index}`)),
    );
    expect(byCount).toHaveLength(SEEN_MAX_TEXTS);
    expect(byCount[0]!.text).toBe("text 7");
    expect(SeenSourcesSchema.safeParse(byChars).success).toBe(true);
    expect(SeenSourcesSchema.safeParse(byCount).success).toBe(true);
  });
});
