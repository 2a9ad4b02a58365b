import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { neutraliseMentions } from "../../../src/adapters/slack/slack-text.js";

const NOTIFYING_SPECIAL = /<!(?!date\^)[^<>|]*(?:\|[^<>]*)?>/;
const BARE_CROWD = /@(here|channel|everyone)\b/i;

describe("neutraliseMentions", () => {
  it.each([
    ["<!here> look", "@\u2060here look"],
    ["<!channel>", "@\u2060channel"],
    ["<!everyone>!", "@\u2060everyone!"],
    ["<!here|here>", "@\u2060here"],
    ["ping <!subteam^S012AB|@oncall> now", "ping @oncall now"],
    ["<!subteam^S012AB>", "@group"],
    ["plain @here and @Channel", "plain @\u2060here and @\u2060Channel"],
  ])("turns %j into %j", (input, expected) => {
    expect(neutraliseMentions(input)).toBe(expected);
  });

  it("keeps user mentions, channel links, dates and ordinary text", () => {
    const text = "Ask <@U123> in <#C456|general> before <!date^1700000000^{date}|Nov 14>: a < b > c";
    expect(neutraliseMentions(text)).toBe(text);
  });

  it("does not let a nested mention survive", () => {
    const out = neutraliseMentions("<!<!here>here> <!chan<!channel>nel>");
    expect(out).not.toMatch(NOTIFYING_SPECIAL);
    expect(out).not.toMatch(BARE_CROWD);
  });

  it("never leaves a notifying mention, for any text", () => {
    const piece = fc.constantFrom("<!", "here", "channel", "everyone", "subteam^S1", "|", ">", "<", "@", " ", "x", "date^1");
    fc.assert(
      fc.property(fc.array(fc.oneof(piece, fc.string()), { maxLength: 30 }), (parts) => {
        const out = neutraliseMentions(parts.join(""));
        expect(out).not.toMatch(NOTIFYING_SPECIAL);
        expect(out).not.toMatch(BARE_CROWD);
        expect(neutraliseMentions(out)).toBe(out);
      }),
    );
  });
});
