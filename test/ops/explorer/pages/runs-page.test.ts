// The runs list's outcome cell as a person reads it: a guard's name where a guard stopped the run
// or the model could not be reached, no "(stopped)" after a person's Stop, and a denied write named.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { priceTable } from "../../../../src/cost/prices.js";
import { RunRecordSchema } from "../../../../src/memory/run-records/record-schema.js";
import { summaryOf } from "../../../../src/memory/run-records/record-store.js";
import type { ExplorerDeps, PageRequest } from "../../../../src/ops/explorer/explorer-deps.js";
import { outcomeCell, runsPage } from "../../../../src/ops/explorer/pages/runs-page.js";

const text = (cell: unknown) => String(cell).replace(/<[^>]+>/g, "");

describe("the outcome cell", () => {
  it.each([
    ["guard", "repeat", "guard (repeat)"],
    ["failed", "model_unavailable", "failed (model_unavailable)"],
    ["stopped", "stopped", "stopped"],
    ["answered", undefined, "answered"],
  ])("%s with %s reads %j", (outcome, guard, shown) => {
    expect(text(outcomeCell(outcome, guard))).toBe(shown);
  });
});

describe("the runs list", () => {
  it("names a denied write beside an answered run's outcome", async () => {
    const stored = JSON.parse(readFileSync("test/fixtures/run-record-before-endpoints.json", "utf8")) as {
      values: Record<string, unknown>;
    };
    const [raw] = Object.entries(stored.values).filter(([key]) => key.startsWith("runs:record:"));
    const record = RunRecordSchema.parse(raw![1]);
    const approval = {
      callId: "c",
      tool: "post_note",
      args: "{}",
      requestedAt: record.startedAt,
      expiresAt: record.endedAt,
      decision: "deny" as const,
    };
    const summary = summaryOf({ ...record, approvals: [approval] });
    const deps = { records: { list: async () => ({ runs: [summary] }) }, prices: priceTable({}) } as unknown as ExplorerDeps;
    const reply = await runsPage({ url: new URL("http://localhost/admin/"), csrf: "", deps } as unknown as PageRequest);
    if (reply.type !== "html") throw new Error("not a page");
    expect(text(reply.body)).toContain("answered · 1 write denied");
  });
});
