// Messages a person adds to a run in progress (RunHooks.added): given to it before its next model
// call as theirs, on the next step's record and in the trace, saved in a checkpoint before they
// count as taken, and never taken twice, also when the run goes on from that checkpoint.
import { describe, expect, it } from "vitest";
import { continueAgent, runAgent } from "../../../src/agent/loop/loop.js";
import type { AddedMessages } from "../../../src/agent/loop/loop-types.js";
import { RunStateSchema, type RunState } from "../../../src/agent/loop/run-state.js";
import { renderTrace } from "../../../src/contracts/trace-text.js";
import type { AddedMessage, AgentEvent } from "../../../src/contracts/types.js";
import { consoleOrigin, loopDeps } from "../../support/loop-harness.js";
import { call, say, ScriptedModel } from "../../support/model-scripted.js";

/** Hands out what waits and is not taken yet, as the runs' inbox does (until marked, a message still waits); records what happened in order. */
function inbox(waiting: readonly AddedMessage[], log: string[]): AddedMessages {
  return {
    async pending(taken) {
      log.push(`pending(${taken.join(",")})`);
      return waiting.filter((message) => !taken.includes(message.id));
    },
    async taken(ids) {
      log.push(`taken(${ids.join(",")})`);
    },
  };
}

const start = {
  runId: "run-1",
  origin: consoleOrigin,
  question: "summarise #releases",
  context: [{ role: "system" as const, content: "test" }],
};

describe("messages added to a run in progress", () => {
  it("join before the next model call as the person's, checkpointed before they count as taken, and show in the trace", async () => {
    const model = new ScriptedModel([call("calculator", { expression: "1+1" }), say("Done.")]);
    const log: string[] = [];
    const events: AgentEvent[] = [];
    const added = inbox(
      [
        { id: "m2", kind: "added", text: "only this week" },
        { id: "m3", kind: "edited", text: "summarise #releases, no mobile" },
      ],
      log,
    );
    const checkpoint = async (state: RunState) => void log.push(`checkpoint(${(state.taken ?? []).join(",")})`);
    const result = await runAgent(start, loopDeps(model), (event) => events.push(event), { checkpoint, added });

    expect(model.requests).toHaveLength(2);
    expect(model.requests[0]!.messages.at(-1)).toEqual({ role: "user", content: "summarise #releases" });
    expect(model.requests[1]!.messages.slice(-2)).toEqual([
      { role: "user", content: "The person added: only this week" },
      { role: "user", content: "The person edited their question to: summarise #releases, no mobile" },
    ]);
    // Saved with them before they are marked taken: a crash in between leaves them in the checkpoint.
    expect(log).toEqual(["checkpoint()", "checkpoint()", "pending()", "checkpoint(m2,m3)", "taken(m2,m3)"]);
    expect(log.filter((line) => line.startsWith("taken"))).toHaveLength(1);
    expect(events.filter((event) => event.type === "message_added").map((event) => event.type === "message_added" && event.step)).toEqual([
      2, 2,
    ]);
    expect(result.outcome.steps[1]!.added).toEqual([
      { kind: "added", text: "only this week" },
      { kind: "edited", text: "summarise #releases, no mobile" },
    ]);
    expect(renderTrace(result.outcome.steps)).toContain("+ added to the run in progress: only this week");
  });

  it("a run that answers at its first model call takes nothing: a later message is a run of its own", async () => {
    const model = new ScriptedModel([say("Done.")]);
    const log: string[] = [];
    await runAgent(start, loopDeps(model), () => {}, { added: inbox([{ id: "m2", kind: "added", text: "and more" }], log) });
    expect(log).toEqual([]);
  });

  it("going on from a checkpoint that holds added messages marks them taken again and never adds them twice", async () => {
    const first = new ScriptedModel([call("calculator", { expression: "1+1" }), call("calculator", { expression: "2+2" })]);
    let saved: RunState | undefined;
    const checkpoint = async (state: RunState) => {
      saved = state;
    };
    const stopAfter = { aborted: false };
    const log: string[] = [];
    const added = inbox([{ id: "m2", kind: "added", text: "only this week" }], log);
    // The process dies after the step that saw the message (a shutdown at the checkpoint stands in for the kill).
    const dying = runAgent(start, loopDeps(first), () => {}, {
      checkpoint: async (state) => {
        await checkpoint(state);
        if (state.steps.length === 2) stopAfter.aborted = true;
      },
      signal: stopAfter,
      added,
    });
    await expect(dying).rejects.toThrow();
    const state = RunStateSchema.parse(JSON.parse(JSON.stringify(saved)));
    expect(state.taken).toEqual(["m2"]);

    const after = new ScriptedModel([call("calculator", { expression: "3+3" }), say("Done.")]);
    const again: string[] = [];
    await continueAgent(state, loopDeps(after), () => {}, { added: inbox([{ id: "m2", kind: "added", text: "only this week" }], again) });
    expect(again).toEqual(["taken(m2)", "pending(m2)"]);
    expect(after.requests[1]!.messages.filter((message) => message.content === "The person added: only this week")).toHaveLength(1);
  });
});
