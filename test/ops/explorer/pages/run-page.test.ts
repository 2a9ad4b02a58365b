// The run page as its reader sees it: a step that waited for a person says how much of its time was
// the wait, a denied write is named beside the outcome, a console run says it has no thread link
// instead of showing a label that looks like one, and counts of one read as one.
import { describe, expect, it } from "vitest";
import { fixtureRecord, runPageText as shown } from "../../../support/run-page-text.js";

/** A recorded two-step console run (an earlier version's record), changed per test. */
const fixture = () => fixtureRecord("test/fixtures/run-record-before-endpoints.json");

describe("the run page", () => {
  it("says how much of a step was the wait for approval, and that a write was denied", async () => {
    const record = fixture();
    const step = record.steps[0]!;
    const waited = { ...step, durationMs: 26_600 };
    const approval = {
      callId: "call_a",
      tool: "calculator",
      args: step.calls[0]!.args,
      requestedAt: step.startedAt + 300,
      expiresAt: step.startedAt + 900_000,
      decision: "deny" as const,
      decidedBy: { id: "alice", name: "Alice" },
      decidedAt: step.startedAt + 26_400,
    };
    const text = await shown({ ...record, steps: [waited, ...record.steps.slice(1)], approvals: [approval] });
    expect(text).toMatch(/Step 1 · 26\.6 s \(model \d+ ms · waiting for approval 26\.1 s\)/);
    expect(text).toMatch(/answered · 1 write denied/);
  });

  it("names no thread link for a console run, and counts of one in the singular", async () => {
    const record = fixture();
    const text = await shown({ ...record, settings: { ...record.settings, maxSteps: 1, maxConsecutiveErrors: 1 } });
    expect(text).toContain("none (a console conversation has no link)");
    expect(text).not.toContain("open the conversation");
    expect(text).toContain("at most 1 step, 1 error in a row");
  });

  it('reads an unpriced model\'s cost as unknown beside its label, not "cost cost unknown"', async () => {
    const record = fixture();
    const text = await shown({ ...record, settings: { ...record.settings, model: "llama3" } });
    expect(text).toMatch(/Cost\s*unknown \(llama3\)/);
    expect(text).not.toMatch(/Cost\s*cost unknown/);
  });
});
