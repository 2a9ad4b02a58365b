// What the console prints for progress, approvals and outcomes.
import { describe, expect, it } from "vitest";
import type { CallRecord, PendingApproval } from "../../../src/contracts/types.js";
import { answerText, approvalRequest, clean, progressLine, wrap } from "../../../src/adapters/console/console-text.js";

function record(overrides: Partial<CallRecord>): CallRecord {
  return {
    callId: "c1",
    tool: "calculator",
    args: '{"expression":"7*5"}',
    signature: "calculator#x",
    outcome: "ok",
    result: "35",
    observation: "35",
    durationMs: 1.2,
    ...overrides,
  };
}

const origin = { surface: "console" as const, conversationKey: "console:local", requester: { id: "console", name: "ada" }, place: {} };

describe("progress lines", () => {
  it("shows the step, the call, its result and how long it took", () => {
    expect(progressLine({ type: "tool_result", runId: "r", step: 2, call: record({}) })).toBe(
      '  · step 2: calculator({"expression":"7*5"}) → 35 (1 ms)',
    );
  });

  it("labels failures, with their message when they have one", () => {
    expect(
      progressLine({
        type: "tool_result",
        runId: "r",
        step: 1,
        call: record({ outcome: "invalid_args", result: "expression: expected string\nmore" }),
      }),
    ).toBe('  · step 1: calculator({"expression":"7*5"}) → invalid arguments: expression: expected string … (1 ms)');
    expect(
      progressLine({ type: "tool_result", runId: "r", step: 3, call: record({ outcome: "repeated", result: "the same call again" }) }),
    ).toMatch(/→ repeat, not run \(1 ms\)$/);
    expect(
      progressLine({ type: "tool_result", runId: "r", step: 3, call: record({ outcome: "denied", result: "Denied by ada: long text" }) }),
    ).toMatch(/→ denied, not run \(1 ms\)$/);
    expect(progressLine({ type: "tool_result", runId: "r", step: 3, call: record({ durationMs: 2_500 }) })).toMatch(/\(2\.5 s\)$/);
  });

  it("has no line for events that only change the status", () => {
    expect(progressLine({ type: "step_started", runId: "r", step: 1 })).toBeUndefined();
  });
});

describe("approval request", () => {
  const pending = (args: unknown): PendingApproval => ({
    runId: "r",
    callId: "c",
    tool: "post_message",
    args,
    requester: origin.requester,
    origin,
    expiresAt: 0,
  });

  it("shows the arguments as indented JSON", () => {
    expect(approvalRequest(pending({ channel: "C1", text: "hi" }))).toBe(
      '  ? post_message changes things, so it needs your approval. It would run with:\n      {\n        "channel": "C1",\n        "text": "hi"\n      }',
    );
  });

  it("cuts long arguments and says where the rest is", () => {
    const shown = approvalRequest(pending({ text: "x".repeat(5_000), lines: Array.from({ length: 100 }, (_, index) => index) }));
    expect(shown.length).toBeLessThan(1_600);
    expect(shown).toMatch(/… \(cut; the full arguments are in \/trace\)$/);
  });
});

describe("outcomes and untrusted text", () => {
  it("puts the stop sentence on its own line after the answer", () => {
    const stop = { guard: "repeat" as const, detail: "", sentence: "Stopped: the same call (current_time) was repeated 3 times." };
    expect(answerText({ answer: "Summary.", stop })).toBe("Summary.\n(Stopped: the same call (current_time) was repeated 3 times.)");
  });

  it("strips escape sequences and control characters but keeps newlines and tabs", () => {
    expect(clean("a\u001b[2Jb\u001b]0;title\u0007c\rd\u0000e\nf\tg\u0085h")).toBe("abcde\nf\tgh");
  });
});

describe("wrap", () => {
  it("breaks long lines at spaces, hangs continuation lines under the text, and leaves short lines and long words alone", () => {
    expect(wrap("one two three four", 9)).toBe("one two\nthree\nfour");
    expect(wrap("  · aaa bbb ccc", 10)).toBe("  · aaa\n    bbb\n    ccc");
    expect(wrap("    indented words here", 14)).toBe("    indented\n    words here");
    expect(wrap("short\n", 80)).toBe("short\n");
    expect(wrap("averyveryverylongword x", 5)).toBe("averyveryverylongword\nx");
    expect(wrap("  /demo loop   watch it", 20)).toBe("  /demo loop   watch\n  it");
  });
});
