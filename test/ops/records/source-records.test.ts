// Each tool call's source in the run record, the trace and the run page (issue 39, item 4): a run
// today keeps where its result's text came from; a record written before sources were kept
// (test/fixtures/run-record-before-sources.json, by ba7dd14's own recorder) loads and shows as before.
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { renderTrace } from "../../../src/contracts/trace-text.js";
import { priceTable } from "../../../src/cost/prices.js";
import { RunRecordSchema, type RunRecord } from "../../../src/memory/run-records/record-schema.js";
import type { ExplorerDeps, PageRequest } from "../../../src/ops/explorer/explorer-deps.js";
import { runPage } from "../../../src/ops/explorer/pages/run-page.js";
import { startConsole, type ConsoleHarness } from "../../support/console-harness.js";
import { call, say, ScriptedModel } from "../../support/model-scripted.js";

const SOURCE_LINE = "Source: the result of tool calculator (the model read it as data)";

function oldRecord(): RunRecord {
  const stored = JSON.parse(readFileSync("test/fixtures/run-record-before-sources.json", "utf8")) as { values: Record<string, unknown> };
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

let harness: ConsoleHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe("a tool call's source", () => {
  it("is kept in the run's record, shown on its page and in the console's /trace", async () => {
    harness = await startConsole({ model: new ScriptedModel([call("calculator", { expression: "6*7" }), say("It is 42.")]) });
    harness.type("what is 6*7?");
    await harness.waitFor("It is 42.");
    const [record] = await harness.records();
    expect(record!.steps[0]!.calls[0]!.source).toEqual({ kind: "tool", tool: "calculator" });
    expect(await shown(record!)).toContain(SOURCE_LINE);
    const from = harness.mark();
    harness.type("/trace");
    await harness.waitFor("source: the result of tool calculator", from);
  });

  it("is absent from a record written before sources were kept, which loads and shows as before", async () => {
    const record = oldRecord();
    const call = record.steps[0]!.calls[0]!;
    expect(call.tool).toBe("calculator");
    expect(call.source).toBeUndefined();
    const page = await shown(record);
    expect(page).toContain("calculator → ok");
    expect(page).not.toContain("Source:");
  });

  it("reads in the trace under the call whose result it names, and not under a call that did not run", () => {
    const base = { callId: "c", args: "{}", signature: "s", observation: "", durationMs: 3 };
    const steps = [
      {
        index: 1,
        startedAt: 0,
        durationMs: 5,
        text: null,
        calls: [
          {
            ...base,
            tool: "docs__search",
            outcome: "ok" as const,
            result: "found",
            source: { kind: "tool" as const, tool: "docs__search", server: "docs" },
          },
          { ...base, tool: "post_message", outcome: "denied" as const, result: "Denied by ada; it did not run." },
        ],
      },
    ];
    const trace = renderTrace(steps);
    expect(trace).toContain("✓ docs__search({}) — ok · 3 ms\n    source: the result of tool docs__search of MCP server docs\n    → found");
    expect(trace).toContain("✗ post_message({}) — denied · 3 ms\n    → Denied by ada; it did not run.");
  });
});
