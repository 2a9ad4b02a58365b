// Each tool call's source in the run record, the trace and the run page (issue 39, item 4): a run
// today keeps where its result's text came from; a record written before sources were kept
// (test/fixtures/run-record-before-sources.json, by ba7dd14's own recorder) loads and shows as before.
import { afterEach, describe, expect, it } from "vitest";
import { renderTrace } from "../../../src/contracts/trace-text.js";
import { startConsole, type ConsoleHarness } from "../../support/console-harness.js";
import { call, say, ScriptedModel } from "../../support/model-scripted.js";
import { fixtureRecord, runPageText as shown } from "../../support/run-page-text.js";
import { until } from "../../support/until.js";

const SOURCE_LINE = "Source: the result of tool calculator (the model read it as data)";

const oldRecord = () => fixtureRecord("test/fixtures/run-record-before-sources.json");

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
    // The answer shows before its record is written.
    await until(async () => (await harness!.records()).length === 1, "the run's record");
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
