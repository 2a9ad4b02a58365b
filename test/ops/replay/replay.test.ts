// Replay of stored runs through the real loop: unchanged settings reproduce every replayable
// recorded outcome exactly; a lower AGENT_MAX_STEPS turns longer runs into steps trips; a step
// beyond the record is "diverged"; a write is never executed; cut or partial records are not
// replayable; --set values are checked like the variables.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, say, ScriptedModel, type ScriptStep } from "../../support/model-scripted.js";
import type { RunOutcome } from "../../../src/contracts/types.js";
import { priceTable } from "../../../src/cost/prices.js";
import type { RunRecord } from "../../../src/memory/run-records/record-schema.js";
import { replayRecord, type ReplayResult } from "../../../src/ops/replay/replay-run.js";
import { parseOverrides } from "../../../src/ops/replay/replay-settings.js";
import { replayTotals, reportText } from "../../../src/ops/replay/replay-report.js";
import { noteTool, originFor } from "../../support/service-harness.js";
import { temporaryFolder } from "../../support/temporary-folder.js";
import { startRecordedService } from "../../support/records-harness.js";

const prices = priceTable({ scripted: { input: 1, cached: 0.5, output: 2 } });
const usage = (promptTokens: number, completionTokens: number) => ({ promptTokens, completionTokens });
const calc = (expression: string, tokens = 100): ScriptStep => ({ ...call("calculator", { expression }), usage: usage(tokens, 10) });

/** One conversation per scripted run, so each run's script is its own. */
const scripts: Record<string, ScriptStep[]> = {
  plain: [say("hello there", usage(50, 5))],
  oneTool: [calc("6*7"), say("42", usage(120, 3))],
  threeTools: [calc("1+1"), calc("2+2"), calc("3+3"), say("2, 4, 6", usage(200, 8))],
  repeat: [calc("1+1"), calc("1+1"), calc("1+1"), say("I kept asking the same", usage(80, 9))],
  oscillation: [calc("1+1"), calc("2+2"), calc("1+1"), calc("2+2"), calc("1+1"), calc("2+2"), say("went round", usage(90, 4))],
  errors: [call("nope", {}), call("nope", {}), call("nope", {}), say("no such tool", usage(60, 6))],
  empty: [{ text: "" }, say("now an answer", usage(40, 4))],
  unavailable: [calc("1+1"), { error: new Error("server down") }],
  write: [{ ...call("post_note", { text: "ship it" }), usage: usage(70, 7) }, say("Posted.", usage(75, 2))],
  denied: [{ ...call("post_note", { text: "nope" }), usage: usage(70, 7) }, say("Not posted.", usage(75, 2))],
  stepsGuard: [
    ...Array.from({ length: 8 }, (_, index) => calc(`${index}+1`)),
    say("I added eight numbers and was stopped.", usage(300, 12)),
  ],
};

let folder: Awaited<ReturnType<typeof temporaryFolder>>;
const records = new Map<string, RunRecord>();
const note = noteTool();

beforeAll(async () => {
  folder = await temporaryFolder();
  for (const [name, script] of Object.entries(scripts)) {
    const model = new ScriptedModel(script);
    const harness = await startRecordedService({
      model,
      storeUrl: `sqlite://${folder.path}/${name}.sqlite`,
      tools: [note.tool],
      env: { AGENT_MAX_STEPS: "8" },
    });
    let outcome: RunOutcome = await harness.service.ask({ origin: originFor("alice", `console:${name}`), text: `run ${name}` }, () => {});
    if (outcome.status === "paused") {
      const decision = name === "denied" ? "deny" : "approve";
      const result = await harness.service.decide(
        { runId: outcome.runId, callId: outcome.pending.callId, decision, decidedBy: { id: "alice", name: "Alice" } },
        () => {},
      );
      if (result.kind !== "resumed" || !result.outcome) throw new Error(`the decision did not resume ${name}`);
      outcome = result.outcome;
    }
    records.set(name, await harness.record(outcome.runId));
    await harness.close();
  }
});
afterAll(async () => folder.remove());

const replayAll = async (overrides = {}): Promise<Map<string, ReplayResult>> =>
  new Map(await Promise.all([...records].map(async ([name, record]) => [name, await replayRecord(record, overrides, prices)] as const)));

describe("replay", () => {
  it("with unchanged settings reproduces every recorded outcome exactly", async () => {
    expect(records.get("write")!.steps[0]!.calls[0]).toMatchObject({ outcome: "ok", result: "posted: ship it" });
    expect(records.get("denied")!.approvals[0]).toMatchObject({ decision: "deny" });
    const results = await replayAll();
    for (const [name, result] of results) {
      expect(result.kind, name).toBe("replayed");
      if (result.kind !== "replayed") continue;
      expect({ name, changed: result.changed, diverged: result.diverged }).toEqual({ name, changed: [], diverged: undefined });
      expect(result.replayed).toEqual(result.recorded);
    }
    expect(results.get("repeat")).toMatchObject({ replayed: { guard: "repeat", steps: 3 } });
    expect(results.get("unavailable")).toMatchObject({ replayed: { guard: "model_unavailable" } });
    expect(results.get("plain")).toMatchObject({ replayed: { tokens: { prompt: 50, completion: 5 }, cost: (50 * 1 + 5 * 2) / 1_000_000 } });
    expect(replayTotals([...results.values()])).toMatchObject({ runs: 11, same: 11, changed: 0, notReplayable: 0 });
  });

  it("never executes a write: the approved one is played from its record", async () => {
    const before = [...note.posted];
    await replayAll();
    await replayAll({ maxSteps: 1 });
    expect(note.posted).toEqual(before);
    expect(before).toEqual(["ship it"]);
  });

  it("turns runs with more steps than a lower AGENT_MAX_STEPS into steps trips, without a summary call", async () => {
    const parsed = parseOverrides(["AGENT_MAX_STEPS=2"]);
    expect(parsed.kind).toBe("ok");
    const results = await replayAll(parsed.kind === "ok" ? parsed.overrides : {});
    expect(results.get("threeTools")).toMatchObject({
      kind: "replayed",
      recorded: { steps: 4 },
      replayed: {
        guard: "steps",
        steps: 2,
        tokens: { prompt: 200, completion: 20 },
        answer: "(replay: ended by the steps guard; no summary was asked for)",
      },
      changed: ["guard", "steps", "tokens", "cost", "answer"],
    });
    expect(results.get("oneTool")).toMatchObject({ changed: [] });
    expect(results.get("plain")).toMatchObject({ changed: [] });
    expect(results.get("oscillation")).toMatchObject({ replayed: { guard: "steps", steps: 2 } });
    const text = reportText([...results.values()]);
    expect(text).toContain(`${records.get("threeTools")!.runId}: answered → steps guard, steps 4 → 2`);
    expect(text).toMatch(/would end the same/);
  });

  it("says a replay that needs a step the record does not hold diverged", async () => {
    expect(records.get("stepsGuard")).toMatchObject({ stop: { guard: "steps" } });
    expect(records.get("stepsGuard")!.steps).toHaveLength(8);
    const longer = await replayRecord(records.get("stepsGuard")!, { maxSteps: 10 }, prices);
    expect(longer).toMatchObject({
      kind: "replayed",
      diverged: "step 9 is beyond the record",
      replayed: { guard: "model_unavailable", steps: 8 },
    });
    expect(reportText([longer])).toContain("(diverged: step 9 is beyond the record)");
  });

  it("reports a cut, partial or metadata-only record as not replayable", async () => {
    const record = records.get("oneTool")!;
    expect(await replayRecord({ ...record, cut: true }, {}, prices)).toMatchObject({
      kind: "not_replayable",
      reason: expect.stringContaining("cut"),
    });
    expect(await replayRecord({ ...record, partial: true }, {}, prices)).toMatchObject({ kind: "not_replayable" });
    expect(await replayRecord({ ...record, content: "metadata" }, {}, prices)).toMatchObject({
      kind: "not_replayable",
      reason: expect.stringContaining("metadata"),
    });
    expect(await replayRecord({ ...record, stop: { guard: "deadline", detail: "", sentence: "" } }, {}, prices)).toMatchObject({
      kind: "not_replayable",
    });
  });

  it("checks --set like the variables, and refuses settings replay can't change", () => {
    expect(parseOverrides(["AGENT_MAX_STEPS=0"])).toEqual({
      kind: "invalid",
      message: '--set AGENT_MAX_STEPS: expects a whole number from 1 to 100 (got "0")',
    });
    expect(parseOverrides(["SLACK_BOT_TOKEN=xoxb-1"])).toMatchObject({
      kind: "invalid",
      message: expect.stringContaining("replay can change AGENT_MAX_STEPS"),
    });
    expect(parseOverrides(["AGENT_MAX_STEPS"])).toMatchObject({ kind: "invalid" });
    expect(parseOverrides(["TOOL_POLICY=post_note=deny", "AGENT_MAX_STEPS=4"])).toEqual({
      kind: "ok",
      overrides: { toolPolicy: [{ pattern: "post_note", policy: "deny" }], maxSteps: 4 },
    });
  });
});
