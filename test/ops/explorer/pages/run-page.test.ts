// The run page as its reader sees it: a step that waited for a person says how much of its time was
// the wait, a denied write is named beside the outcome, a console run says it has no thread link
// instead of showing a label that looks like one, and counts of one read as one.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { priceTable } from "../../../../src/cost/prices.js";
import { RunRecordSchema, type RunRecord } from "../../../../src/memory/run-records/record-schema.js";
import type { ExplorerDeps, PageRequest } from "../../../../src/ops/explorer/explorer-deps.js";
import { runPage } from "../../../../src/ops/explorer/pages/run-page.js";

/** A recorded two-step console run (an earlier version's record), changed per test. */
function fixture(): RunRecord {
  const stored = JSON.parse(readFileSync("test/fixtures/run-record-before-endpoints.json", "utf8")) as { values: Record<string, unknown> };
  const [raw] = Object.entries(stored.values).filter(([key]) => key.startsWith("runs:record:"));
  return RunRecordSchema.parse(raw![1]);
}

async function shown(record: RunRecord): Promise<string> {
  const deps = { records: { load: async () => ({ kind: "found", record }) }, prices: priceTable({}) } as unknown as ExplorerDeps;
  const request = { params: [record.runId], deps, csrf: "", form: new URLSearchParams() } as unknown as PageRequest;
  const reply = await runPage(request);
  if (reply.type !== "html") throw new Error(`not a page: ${JSON.stringify(reply)}`);
  return reply.body.replace(/<[^>]+>/g, "").replace(/&#39;/g, "'");
}

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
