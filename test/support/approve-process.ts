// Run as a separate process: opens the same store, approves a paused run, prints the result as JSON.
import { say, ScriptedModel } from "./model-scripted.js";
import { noteTool, startService } from "./service-harness.js";

const [storeUrl, runId, callId] = process.argv.slice(2) as [string, string, string];
const note = noteTool();
const harness = await startService({ model: new ScriptedModel([say("Posted it.")]), storeUrl, tools: [note.tool] });
const result = await harness.service.decide(
  { runId, callId, decision: "approve", decidedBy: { id: "alice", name: "alice" } },
  harness.sink,
);
await harness.close();
process.stdout.write(
  JSON.stringify({
    kind: result.kind,
    posted: note.posted,
    answer: result.kind === "resumed" ? (result.outcome as { answer?: string }).answer : undefined,
  }),
);
