import { describe, expect, it } from "vitest";
import { resumeAgent } from "../../../src/agent/loop/loop.js";
import { call, calls, say, ScriptedModel } from "../../support/model-scripted.js";
import { consoleOrigin, loopDeps, runQuestion, hangingTool } from "../../support/loop-harness.js";
import { noteTool } from "../../support/service-harness.js";

describe("a write call and the run's deadline", () => {
  it("does not ask for approval once the run's time is up", async () => {
    const note = noteTool();
    const model = new ScriptedModel([calls(call("hang", {}), call("post_note", { text: "late" })), say("Time ran out before the post.")]);
    const { outcome, events } = await runQuestion(model, "x", { tools: [hangingTool, note.tool], guards: { runTimeoutMs: 30 } });
    expect(outcome).toMatchObject({ status: "answered", stop: { guard: "deadline" } });
    expect(events.some((event) => event.type === "approval_needed")).toBe(false);
    const summaryText = model.requests[1]!.messages.map((message) => message.content ?? "").join("\n");
    expect(summaryText.match(/\[tool result [^\]]+\]/g)).toHaveLength(2);
    expect(note.posted).toEqual([]);
  });

  it("an approval that arrives after the run's time was used up runs nothing", async () => {
    const note = noteTool();
    const model = new ScriptedModel([call("post_note", { text: "late" }), say("Time ran out.")]);
    const deps = loopDeps(model, { tools: [note.tool], guards: { runTimeoutMs: 60_000 } });
    const paused = await runQuestion(model, "x", { tools: [note.tool], guards: { runTimeoutMs: 60_000 } });
    expect(paused.outcome.status).toBe("paused");
    const spent = { ...paused.state, elapsedMs: 60_000 };
    const resumed = await resumeAgent(spent, { kind: "decided", decision: "approve", decidedBy: consoleOrigin.requester }, deps, () => {});
    expect(note.posted).toEqual([]);
    expect(resumed.outcome).toMatchObject({ status: "answered", stop: { guard: "deadline" } });
  });
});

describe("resuming a step whose later calls trip a guard", () => {
  it("runs the approved write once, blocks the rest, answers every call id and summarises without tools", async () => {
    const note = noteTool();
    const same = call("calculator", { expression: "1+1" });
    const model = new ScriptedModel([
      calls(same, call("post_note", { text: "hi" }), same, same, same),
      say("Posted; then I repeated myself."),
    ]);
    const deps = loopDeps(model, { tools: [note.tool] });
    const paused = await runQuestion(model, "x", { tools: [note.tool] });
    expect(paused.outcome.status).toBe("paused");
    const resumed = await resumeAgent(
      paused.state,
      { kind: "decided", decision: "approve", decidedBy: consoleOrigin.requester },
      deps,
      () => {},
    );
    expect(note.posted).toEqual(["hi"]);
    expect(resumed.outcome).toMatchObject({ status: "answered", answer: "Posted; then I repeated myself.", stop: { guard: "repeat" } });
    const summary = model.requests.at(-1)!;
    expect(summary.tools).toEqual([]);
    // No tools offered, so no tool calls either: each call and its answer are in the text, by id.
    expect(summary.messages.some((message) => message.role === "tool" || (message.role === "assistant" && message.toolCalls))).toBe(false);
    const text = summary.messages.map((message) => message.content ?? "").join("\n");
    const ids = [...text.matchAll(/\[called \w+\(.*?\) as ([\w.-]+)\]/g)].map((match) => match[1]);
    const answeredIds = [...text.matchAll(/\[tool result ([\w.-]+)\]/g)].map((match) => match[1]);
    expect(ids).toHaveLength(5);
    expect(answeredIds).toEqual(ids);
    expect(summary.messages.at(-1)?.role).toBe("user");
    expect(resumed.outcome.steps[0]!.calls.map((item) => item.outcome)).toEqual(["ok", "ok", "ok", "repeated", "blocked"]);
  });
});
