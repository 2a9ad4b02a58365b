import { describe, expect, it } from "vitest";
import type { CallRecord } from "../../../src/contracts/types.js";
import { statusFor, taskLines, taskUpdatesFor } from "../../../src/adapters/core/cards.js";
import { statusLine } from "../../../src/adapters/slack/slack-display.js";
import { streamChunk } from "../../../src/adapters/slack/stream-trace.js";

const record = (outcome: CallRecord["outcome"], result: string): CallRecord => ({
  callId: "call_1",
  tool: "read_channel",
  args: '{"channel":"C1"}',
  signature: "read_channel#x",
  outcome,
  result,
  observation: result,
  durationMs: 1_500,
});

describe("task updates", () => {
  it("follows one tool call from pending to complete", () => {
    const toolCall = { id: "call_1", name: "read_channel", arguments: '{"channel":"C1"}' };
    expect(taskUpdatesFor({ type: "model_replied", runId: "r", step: 1, text: null, toolCalls: [toolCall] })).toEqual([
      { id: "call_1", title: 'read_channel({"channel":"C1"})', status: "pending" },
    ]);
    expect(taskUpdatesFor({ type: "tool_called", runId: "r", step: 1, call: toolCall })[0]?.status).toBe("in_progress");
    expect(taskUpdatesFor({ type: "tool_result", runId: "r", step: 1, call: record("ok", "3 messages") })).toEqual([
      { id: "call_1", title: 'read_channel({"channel":"C1"})', status: "complete", details: "ok · 1.5 s", output: "3 messages" },
    ]);
  });

  it.each([
    ["error", "error"],
    ["timeout", "error"],
    ["invalid_args", "error"],
    ["denied", "error"],
    ["needs_approval", "pending"],
  ] as const)("shows a %s call as %s", (outcome, status) => {
    expect(taskUpdatesFor({ type: "tool_result", runId: "r", step: 1, call: record(outcome, "x") })[0]?.status).toBe(status);
  });

  it("keeps what a tool returned as written; Slack neutralises its mentions when it streams it", () => {
    const [update] = taskUpdatesFor({ type: "tool_result", runId: "r", step: 1, call: record("ok", "<!everyone> look") });
    expect(update?.output).toBe("<!everyone> look");
    expect(streamChunk(update!).output).toBe("@\u2060everyone look");
  });

  it("has no task for other events", () => {
    expect(taskUpdatesFor({ type: "step_started", runId: "r", step: 1 })).toEqual([]);
  });

  it("names the current step in Slack's status line", () => {
    const line = (event: Parameters<typeof statusFor>[0]) => {
      const status = statusFor(event);
      return status && statusLine(status);
    };
    expect(line({ type: "step_started", runId: "r", step: 1 })).toBe("is thinking…");
    expect(line({ type: "step_started", runId: "r", step: 3 })).toBe("is thinking (step 3)…");
    expect(line({ type: "tool_called", runId: "r", step: 1, call: { id: "c", name: "calculator", arguments: "{}" } })).toBe(
      "is running calculator…",
    );
    expect(statusFor({ type: "model_replied", runId: "r", step: 1, text: "x", toolCalls: [] })).toBeUndefined();
    expect(line({ type: "tool_called", runId: "r", step: 1, call: { id: "c", name: "<!here>", arguments: "{}" } })).toBe(
      "is running @\u2060here…",
    );
  });

  it("renders tasks as plain lines for the fallback message", () => {
    const text = taskLines([
      { id: "a", title: "one()", status: "complete", details: "ok", output: "1" },
      { id: "b", title: "two()", status: "in_progress" },
    ]);
    expect(text).toBe("✓ one() — ok\n    → 1\n◐ two()");
  });
});
