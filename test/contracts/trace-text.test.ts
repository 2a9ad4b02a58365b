import { describe, expect, it } from "vitest";
import { describeCall, renderTrace, shorten } from "../../src/contracts/trace-text.js";
import type { CallOutcome, CallRecord, StepRecord } from "../../src/contracts/types.js";

function callRecord(overrides: Partial<CallRecord> = {}): CallRecord {
  return {
    callId: "c1",
    tool: "calculator",
    args: '{"expression":"2+2"}',
    signature: "calculator#0000000000000000",
    outcome: "ok",
    result: "4",
    observation: "4",
    durationMs: 3,
    ...overrides,
  };
}

function step(index: number, calls: readonly CallRecord[], overrides: Partial<StepRecord> = {}): StepRecord {
  return { index, startedAt: 0, durationMs: 12, text: null, calls, ...overrides };
}

describe("shorten", () => {
  it("flattens whitespace and cuts with an ellipsis", () => {
    expect(shorten("  a\n\tb   c ", 10)).toBe("a b c");
    expect(shorten("abcdefghij", 5)).toBe("abcd…");
    expect(shorten("abcde", 5)).toBe("abcde");
  });
});

describe("describeCall", () => {
  it("gives the tool with its arguments, the outcome with the duration, and the result", () => {
    expect(describeCall(callRecord())).toEqual({ title: 'calculator({"expression":"2+2"})', detail: "ok · 3 ms", output: "4" });
  });

  it("writes durations of a second or more in seconds", () => {
    expect(describeCall(callRecord({ durationMs: 1_540 })).detail).toBe("ok · 1.5 s");
    expect(describeCall(callRecord({ durationMs: 999.4 })).detail).toBe("ok · 999 ms");
  });

  it("keeps long arguments and results short", () => {
    const described = describeCall(callRecord({ args: `{"q":"${"a".repeat(300)}"}`, result: `line one\nline two ${"b".repeat(400)}` }));
    expect(described.title.length).toBeLessThanOrEqual("calculator()".length + 80);
    expect(described.title.endsWith("…)")).toBe(true);
    expect(described.output.length).toBeLessThanOrEqual(160);
    expect(described.output.startsWith("line one line two")).toBe(true);
  });

  it.each([
    ["ok", "ok"],
    ["error", "error"],
    ["invalid_args", "invalid arguments"],
    ["unknown_tool", "unknown tool"],
    ["timeout", "timed out"],
    ["repeated", "repeat, not run"],
    ["denied", "denied"],
    ["needs_approval", "waiting for approval"],
    ["blocked", "not run, stopped by a guard"],
  ] as const satisfies ReadonlyArray<readonly [CallOutcome, string]>)("labels %s as %s", (outcome, label) => {
    expect(describeCall(callRecord({ outcome, durationMs: 0 })).detail).toBe(`${label} · 0 ms`);
  });
});

describe("renderTrace", () => {
  it("cuts a single step with many calls instead of hiding it", () => {
    const crowded = step(
      1,
      Array.from({ length: 200 }, (_, index) => callRecord({ callId: `c${index}`, args: `{"n":${index}}` })),
    );
    const text = renderTrace([crowded], { maxChars: 1_000 });
    expect(text.length).toBeLessThanOrEqual(1_000);
    expect(text).toMatch(/^Step 1/);
    expect(text).toContain('{"n":0}');
    expect(text).not.toContain("omitted");
  });

  it("says so when there are no steps", () => {
    expect(renderTrace([])).toBe("No steps.");
  });

  it("shows each call with a mark, its outcome and a preview, and the answer step", () => {
    const text = renderTrace([
      step(1, [
        callRecord(),
        callRecord({
          callId: "c2",
          tool: "lookup",
          args: "{}",
          outcome: "unknown_tool",
          result: 'Error: there is no tool named "lookup".',
        }),
      ]),
      step(2, [], { text: "The answer is 4.", durationMs: 2_500 }),
    ]);
    expect(text).toBe(
      [
        "Step 1 · 12 ms",
        '  ✓ calculator({"expression":"2+2"}) — ok · 3 ms',
        "    → 4",
        "  ✗ lookup({}) — unknown tool · 3 ms",
        '    → Error: there is no tool named "lookup".',
        "Step 2 · 2.5 s",
        "  answered: The answer is 4.",
      ].join("\n"),
    );
  });

  it("leaves out the arrow when a call had no output", () => {
    expect(renderTrace([step(1, [callRecord({ result: "   " })])])).not.toContain("→");
  });

  it("shows an empty answer step without text", () => {
    expect(renderTrace([step(1, [], { text: null })])).toBe("Step 1 · 12 ms\n  answered");
  });

  describe("when the steps do not fit", () => {
    const many = Array.from({ length: 40 }, (_, index) =>
      step(index + 1, [callRecord({ callId: `c${index}`, args: `{"expression":"${index}+1"}`, result: "r".repeat(150) })]),
    );

    it("stays within the bound", () => {
      for (const maxChars of [400, 1_000, 3_500]) expect(renderTrace(many, { maxChars }).length).toBeLessThanOrEqual(maxChars);
      expect(renderTrace(many).length).toBeLessThanOrEqual(3_500);
    });

    it("keeps the first and the last steps and says how many it left out", () => {
      const text = renderTrace(many, { maxChars: 1_200 });
      expect(text.startsWith("Step 1 ·")).toBe(true);
      expect(text).toContain("Step 40 ·");
      const omitted = Number(/… (\d+) steps omitted …/.exec(text)?.[1]);
      const shown = text.match(/^Step \d+ ·/gm) ?? [];
      expect(shown.length + omitted).toBe(40);
      expect(text.indexOf("omitted")).toBeGreaterThan(text.indexOf("Step 1 ·"));
      expect(text.indexOf("omitted")).toBeLessThan(text.indexOf("Step 40 ·"));
    });

    it("keeps the steps in order around the marker", () => {
      const numbers = (renderTrace(many, { maxChars: 2_000 }).match(/^Step (\d+) ·/gm) ?? []).map((line) => Number(/\d+/.exec(line)![0]));
      expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
    });

    it("cuts even a single step that is larger than the bound", () => {
      const huge = [
        step(
          1,
          Array.from({ length: 30 }, (_, index) => callRecord({ callId: `c${index}` })),
        ),
      ];
      expect(renderTrace(huge, { maxChars: 200 }).length).toBeLessThanOrEqual(200);
    });
  });
});
