// Checkpoint deltas at their edges: a new array with a changed earlier item, an array changed in
// place at its end, an observation that is not the tool message's text, a step appended alone,
// a first part that claims to continue a log, and the reason a refused part gives.
import { describe, expect, it } from "vitest";
import { emptyGuardCounters, type RunState } from "../../../src/agent/loop/run-state.js";
import type { ChatMessage, StepRecord } from "../../../src/contracts/types.js";
import { assemble, createCheckpointStore } from "../../../src/runs/worker/checkpoint-store.js";
import { mapStore } from "../../support/map-store.js";
import { emptyStep, runState } from "../../support/run-states.js";

const state = (messages: ChatMessage[], steps: StepRecord[]): RunState => runState({ messages, steps });
const step = emptyStep;
const user = (content: string): ChatMessage => ({ role: "user", content });

async function saveAndLoad(saves: readonly RunState[]) {
  const store = mapStore();
  const checkpoints = createCheckpointStore(store);
  const writer = checkpoints.writer("run1");
  for (const saved of saves) await writer.save(saved);
  return { store, loaded: await checkpoints.load("run1") };
}

describe("checkpoint deltas", () => {
  it("saves an earlier message changed in a new array that ends with the same message", async () => {
    const last = user("b");
    const { loaded } = await saveAndLoad([state([user("a"), last], []), state([user("a changed"), last], [])]);
    expect(loaded).toMatchObject({ kind: "found", state: { messages: [{ content: "a changed" }, { content: "b" }] } });
  });

  it("saves the last message replaced in place", async () => {
    const messages = [user("a"), user("b")];
    const first = state(messages, []);
    const store = mapStore();
    const checkpoints = createCheckpointStore(store);
    const writer = checkpoints.writer("run1");
    await writer.save(first);
    messages[1] = user("b changed");
    await writer.save(state(messages, []));
    expect(await checkpoints.load("run1")).toMatchObject({
      kind: "found",
      state: { messages: [{ content: "a" }, { content: "b changed" }] },
    });
  });

  it("keeps an observation that is not the tool message's text", async () => {
    const messages: ChatMessage[] = [
      user("q"),
      { role: "assistant", content: null, toolCalls: [{ id: "c1", name: "calc", arguments: "{}" }] },
      { role: "tool", toolCallId: "c1", content: "what the model saw" },
    ];
    const call = {
      callId: "c1",
      tool: "calc",
      args: "{}",
      signature: "calc#1",
      outcome: "ok",
      result: "r",
      observation: "o",
      durationMs: 1,
    } as const;
    const { loaded } = await saveAndLoad([state(messages, [{ ...step(1), calls: [call] }])]);
    expect(loaded).toMatchObject({ kind: "found", state: { steps: [{ calls: [{ observation: "o", result: "r" }] }] } });
  });

  it("writes a step appended to the steps it saved before, alone", async () => {
    const steps = [step(1)];
    const messages = [user("q")];
    const store = mapStore();
    const writer = createCheckpointStore(store).writer("run1");
    await writer.save(state(messages, steps));
    steps.push(step(2));
    await writer.save(state(messages, steps));
    expect(store.data.get("checkpoint:run1:1")).toMatchObject({ steps: { from: 1, items: [{ index: 2 }] } });
  });
});

describe("a checkpoint that must be refused", () => {
  const part = (over: object) => ({
    version: 1,
    head: { runId: "run1", origin: state([], []).origin, question: "q" },
    messages: { from: 0, items: [] },
    steps: { from: 0, items: [] },
    guards: emptyGuardCounters,
    usage: { promptTokens: 0, completionTokens: 0 },
    elapsedMs: 0,
    ...over,
  });

  it("refuses a first part that continues messages or steps nobody saved", async () => {
    for (const over of [{ messages: { from: 1, items: [] } }, { steps: { from: 1, items: [] } }]) {
      const store = mapStore();
      await store.set("checkpoint:run1:0", part(over), 60_000);
      expect(await createCheckpointStore(store).load("run1")).toEqual({
        kind: "invalid",
        reason: "the saved steps do not add up to a run",
      });
    }
  });

  it("assembles nothing from no parts, or from parts without a head", () => {
    expect(assemble([])).toBeUndefined();
    const { head: _head, ...headless } = part({});
    expect(assemble([headless as unknown as Parameters<typeof assemble>[0][number]])).toBeUndefined();
  });

  it("names what failed in a part that does not parse", async () => {
    const store = mapStore();
    await store.set("checkpoint:run1:0", part({ elapsedMs: "soon" }), 60_000);
    const loaded = await createCheckpointStore(store).load("run1");
    expect(loaded.kind === "invalid" && loaded.reason).toMatch(/^a saved step failed validation \((?!unknown\)).+\)$/);
  });
});
