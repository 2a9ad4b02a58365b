// Which channels an answer quotes: the reads whose text it carries (issue 39, item 3).
import { describe, expect, it } from "vitest";
import { quotedReads, quotes } from "../../../src/agent/context/quoted-reads.js";
import type { CallRecord, StepRecord } from "../../../src/contracts/types.js";

const salaries = "Payroll note: the new salary bands start at 140k for seniors and 180k for staff engineers from April.";

function read(channel: string | undefined, result: string, outcome: CallRecord["outcome"] = "ok"): CallRecord {
  const call = {
    callId: `c-${channel}`,
    tool: "read_channel",
    args: "{}",
    signature: "s",
    outcome,
    result,
    observation: result,
    durationMs: 1,
  };
  return channel === undefined ? call : { ...call, source: { kind: "tool", tool: "read_channel", channel } };
}
const step = (...calls: CallRecord[]): StepRecord => ({ index: 1, startedAt: 0, durationMs: 1, text: null, calls });

describe("quotes", () => {
  it("finds a long run of a read's words in the answer, whatever the case and punctuation", () => {
    expect(quotes(`Here is what #hr says: THE NEW SALARY BANDS start at 140k for seniors, and more.`, salaries)).toBe(true);
  });

  it("does not take a few common words for a quote", () => {
    expect(quotes("Let me know if the new plan works for you and the team tomorrow.", "let me know if the deploy breaks")).toBe(false);
  });

  it("takes most of a short answer for a quote", () => {
    expect(quotes("salary bands start at 140k", salaries)).toBe(true);
    expect(quotes("yes", salaries)).toBe(false);
  });
});

describe("quotedReads", () => {
  it("names each quoted channel once, in the order read, and only successful reads that named a channel", () => {
    const steps = [
      step(read("C_HR", salaries), read("C_PUB", "lunch is at noon on friday in the big room")),
      step(read("C_HR", salaries), read("C_ERR", salaries, "error"), read(undefined, salaries)),
    ];
    expect(quotedReads(`From #hr: ${salaries}`, steps)).toEqual(["C_HR"]);
    expect(quotedReads("Nothing was found about that.", steps)).toEqual([]);
  });
});
