// What of a growing text is streamed into Slack: never a mention half written (so the mention
// neutraliser sees every one whole, however the text was cut into pieces), never whitespace at the
// end; and where a full streamed message is cut: within the room, at a line, then a word.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { neutraliseMentions } from "../../../src/adapters/slack/slack-text.js";
import { chunkChars, streamable, streamCut } from "../../../src/adapters/slack/streamed-text.js";

describe("streamable", () => {
  it("holds back a word that may become a mention, and the whitespace at the end", () => {
    expect(streamable("Tell @chan")).toBe("Tell");
    expect(streamable("Tell <!chan")).toBe("Tell");
    expect(streamable("It is noon. ")).toBe("It is noon.");
    expect(streamable("Mail a@b.c and")).toBe("Mail a@b.c and");
  });

  it("sends a mention whose label starts with @ whole, once it is closed", () => {
    expect(streamable("Ask <!subteam^S1|@devs")).toBe("Ask");
    expect(streamable("Ask <!subteam^S1|@devs>")).toBe("Ask <!subteam^S1|@devs>");
    expect(streamable("Ask <!subteam^S1|@devs> or @chan")).toBe("Ask <!subteam^S1|@devs> or");
  });

  it("streams pieces that, neutralised one by one, ping nobody and read as the whole text (property)", () => {
    const words = fc.constantFrom(
      "@here",
      "@channel",
      "<!channel>",
      "<!subteam^S1|the team>",
      "<!subteam^S1|@devs>",
      "<!date^1|x>",
      "hi",
      "a@b",
      " ",
      "\n",
      "<",
      ">",
      "@",
      "here",
      "everyone",
    );
    fc.assert(
      fc.property(
        fc.array(words, { maxLength: 30 }),
        fc.array(fc.integer({ min: 1, max: 8 }), { minLength: 1, maxLength: 30 }),
        (chosen, cuts) => {
          const text = chosen.join("");
          let sent = "";
          let shown = "";
          for (let end = 0, index = 0; end < text.length; index++) {
            end = Math.min(text.length, end + cuts[index % cuts.length]!);
            const now = streamable(text.slice(0, end));
            if (!now.startsWith(sent)) throw new Error(`"${now}" does not continue "${sent}"`);
            shown += neutraliseMentions(now.slice(sent.length));
            sent = now;
          }
          shown += neutraliseMentions(text.trimEnd().slice(sent.length));
          // Nothing in what was streamed pings anyone, and it reads as the whole text neutralised (word joiners aside).
          expect(neutraliseMentions(shown)).toBe(shown);
          const joiners = /\u2060/g;
          expect(shown.replace(joiners, "")).toBe(neutraliseMentions(text.trimEnd()).replace(joiners, ""));
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("streamCut", () => {
  it("takes all of a text that fits", () => {
    expect(streamCut("It is noon.", 1_000)).toBe("It is noon.".length);
  });

  it("cuts at a line, else a word, within the room", () => {
    const lines = `${"a".repeat(60)}\n${"b".repeat(60)}`;
    expect(streamCut(lines, chunkChars(lines) - 5)).toBe(61);
    const words = `${"word ".repeat(20)}`;
    const cut = streamCut(words, 60);
    expect(words.slice(0, cut).endsWith(" ")).toBe(true);
    expect(chunkChars(words.slice(0, cut))).toBeLessThanOrEqual(60);
  });

  it("counts JSON escapes, and never cuts a surrogate pair", () => {
    const quotes = '"'.repeat(40);
    expect(chunkChars(quotes.slice(0, streamCut(quotes, 70)))).toBeLessThanOrEqual(70);
    const emoji = "😀".repeat(40);
    const cut = streamCut(emoji, 70);
    expect(cut % 2).toBe(0);
  });
});
