// model_retrying: the console shows it as a line ("model not answering, retry 2 of 3"); the
// chat surfaces' status and task list pass it by (no status change, no task update, no throw).
import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../../../src/contracts/types.js";
import { progressLine, statusText } from "../../../src/adapters/console/console-text.js";
import { statusFor, taskUpdatesFor } from "../../../src/adapters/core/cards.js";

const retrying: AgentEvent = {
  type: "model_retrying",
  runId: "run-1",
  step: 2,
  retry: 2,
  of: 3,
  cause: "could not connect to http://127.0.0.1:9/v1 (connection refused: ECONNREFUSED)",
  waitMs: 1_000,
};

describe("a model_retrying event on the surfaces", () => {
  it("is a console line with the retry and the cause; it changes no status line and no task list", () => {
    expect(statusFor(retrying)).toBeUndefined();
    expect(taskUpdatesFor(retrying)).toEqual([]);
    expect(statusText(retrying)).toBeUndefined();
    expect(progressLine(retrying)).toBe(
      "  · model not answering, retry 2 of 3 in 1.0 s: could not connect to http://127.0.0.1:9/v1 (connection refused: ECONNREFUSED)",
    );
  });
});
