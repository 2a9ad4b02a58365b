// A write approved after a read in the same run goes on (issue 39): the read's result keeps its
// source in the paused state, and the state read back is the one signed with the approval, so the
// approval is not refused as altered.
import { expect, it } from "vitest";
import { call, say, ScriptedModel } from "../../support/model-scripted.js";
import { aliceDecides, answerOf, harness, pendingOf, useApprovalStores } from "../../support/approval-harness.js";
import { noteTool, originFor } from "../../support/service-harness.js";

useApprovalStores();

it("runs the write approved after a read, and the read's source stays in the run's steps", async () => {
  const note = noteTool();
  const model = new ScriptedModel([call("calculator", { expression: "6*7" }), call("post_note", { text: "42" }), say("Posted.")]);
  const { service, sink } = await harness(model, { tools: [note.tool] });
  const pending = pendingOf(await service.ask({ origin: originFor(), text: "post 6*7" }, sink));
  const result = await aliceDecides(service, pending, "approve", sink);
  expect(result.kind).toBe("resumed");
  expect(note.posted).toEqual(["42"]);
  expect(answerOf(result)).toBe("Posted.");
  if (result.kind !== "resumed" || result.outcome?.status !== "answered") throw new Error("no answer");
  expect(result.outcome.steps[0]!.calls[0]!.source).toEqual({ kind: "tool", tool: "calculator" });
});
