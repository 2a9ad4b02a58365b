// model_retrying is a new AgentEvent: until a surface renders it, every surface's progress
// renderer must pass it by (no status change, no task update, no throw).
import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../src/agent/types.js";
import { progressLine, statusText } from "../src/surfaces/console/console-text.js";
import { statusFor, taskUpdatesFor } from "../src/surfaces/core/cards.js";

const retrying: AgentEvent = {
  type: "model_retrying",
  runId: "run-1",
  step: 2,
  retry: 2,
  of: 3,
  cause: "could not connect to http://127.0.0.1:9/v1 (connection refused: ECONNREFUSED)",
  waitMs: 1_000,
};

describe("a model_retrying event on today's surfaces", () => {
  it("changes no status line and no task list, and throws nowhere", () => {
    expect(statusFor(retrying)).toBeUndefined();
    expect(taskUpdatesFor(retrying)).toEqual([]);
    expect(statusText(retrying)).toBeUndefined();
    expect(progressLine(retrying)).toBeUndefined();
  });
});
