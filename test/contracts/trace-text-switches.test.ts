// A step whose model call moved to another endpoint says so in the trace, in one line, and a move
// in flight has its own words for a surface to show.
import { describe, expect, it } from "vitest";
import { describeAnsweredBy, describeSwitch, renderTrace } from "../../src/contracts/trace-text.js";
import type { StepRecord } from "../../src/contracts/types.js";

const A = "gpt-4.1@https://api.openai.com/v1";
const B = "gpt-4o@https://eu.example/v1";
const A2 = "gpt-4.1@https://eu.example/v1";

const step = (extra: Partial<StepRecord>): StepRecord => ({ index: 1, startedAt: 0, durationMs: 1_200, text: "hi", calls: [], ...extra });

describe("a step answered by another endpoint", () => {
  it("names who answered instead of whom, and why", () => {
    const moved = step({ endpoint: B, switches: [{ from: A, to: B, cause: "429 from api.openai.com" }] });
    expect(describeAnsweredBy(moved)).toBe("gpt-4o answered instead of gpt-4.1: 429 from api.openai.com");
    expect(renderTrace([moved])).toBe("Step 1 · 1.2 s\n  ↪ gpt-4o answered instead of gpt-4.1: 429 from api.openai.com\n  answered: hi");
  });

  it("tells endpoints of the same model apart by their host", () => {
    const moved = step({ endpoint: A2, switches: [{ from: A, to: A2, cause: "503 from api.openai.com" }] });
    expect(describeAnsweredBy(moved)).toBe("gpt-4.1 at eu.example answered instead of gpt-4.1 at api.openai.com: 503 from api.openai.com");
  });

  it("lists every cause when the call moved more than once", () => {
    const moved = step({
      endpoint: A2,
      switches: [
        { from: A, to: B, cause: "429 from api.openai.com" },
        { from: B, to: A2, cause: "503 from eu.example" },
      ],
    });
    expect(describeAnsweredBy(moved)).toBe(
      "gpt-4.1 at eu.example answered instead of gpt-4.1 at api.openai.com: 429 from api.openai.com; 503 from eu.example",
    );
  });

  it("says so when the first endpoint answered after the others failed too", () => {
    const back = step({
      endpoint: A,
      switches: [
        { from: A, to: B, cause: "503 from api.openai.com" },
        { from: B, to: A, cause: "503 from eu.example" },
      ],
    });
    expect(describeAnsweredBy(back)).toBe("gpt-4.1 answered on a later try: 503 from api.openai.com; 503 from eu.example");
  });

  it("adds nothing for a step that did not move (older steps have no endpoint at all)", () => {
    expect(describeAnsweredBy(step({ endpoint: A }))).toBeUndefined();
    expect(renderTrace([step({})])).toBe("Step 1 · 1.2 s\n  answered: hi");
  });
});

describe("a move in flight", () => {
  it("says which endpoint did not answer and which is asked now", () => {
    expect(describeSwitch({ from: A, to: B, cause: "429 from api.openai.com" })).toBe(
      "gpt-4.1 did not answer (429 from api.openai.com); asking gpt-4o",
    );
  });
});
