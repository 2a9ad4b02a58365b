// What a checkpoint load refuses and what a writer promises: a log whose parts leave a gap, a
// call whose observation is nowhere, a log copied under another run, a part 0 without its
// head are all refused; the state is the last part's (pending included), and a cleared writer
// starts a log of its own.
import { describe, expect, it } from "vitest";
import type { PendingStep, RunState } from "../../../src/agent/loop/run-state.js";
import type { CallRecord, ChatMessage, StepRecord } from "../../../src/contracts/types.js";
import { createCheckpointStore } from "../../../src/runs/worker/checkpoint-store.js";
import { mapStore } from "../../support/map-store.js";
import { runState } from "../../support/run-states.js";

const state = (messages: readonly ChatMessage[], steps: readonly StepRecord[], pending?: PendingStep, runId = "run1"): RunState =>
  runState({ messages, steps, runId, ...(pending ? { pending } : {}) });

const callRecord = (callId: string, observation: string): CallRecord => ({
  callId,
  tool: "calc",
  args: "{}",
  signature: "calc#1",
  outcome: "ok",
  result: observation,
  observation,
  durationMs: 1,
});

/** Step `index` called `calc` once and saw `observed <index>`: an assistant message, a tool message and the step. */
function stepWithCall(index: number): { messages: ChatMessage[]; step: StepRecord } {
  const callId = `c${index}`;
  return {
    messages: [
      { role: "assistant", content: null, toolCalls: [{ id: callId, name: "calc", arguments: "{}" }] },
      { role: "tool", toolCallId: callId, content: `observed ${index}` },
    ],
    step: { index, startedAt: 1, durationMs: 1, text: null, calls: [callRecord(callId, `observed ${index}`)] },
  };
}

/** A run of `count` steps saved one part per step; returns the store and the final state. */
async function savedRun(count: number) {
  const store = mapStore();
  const checkpoints = createCheckpointStore(store);
  const writer = checkpoints.writer("run1");
  const messages: ChatMessage[] = [{ role: "user", content: "q" }];
  const steps: StepRecord[] = [];
  for (let index = 1; index <= count; index++) {
    const added = stepWithCall(index);
    messages.push(...added.messages);
    steps.push(added.step);
    await writer.save(state(messages, steps));
  }
  return { store, checkpoints, writer, final: state(messages, steps) };
}

type StoredPart = {
  head?: unknown;
  messages: { from: number; items: ChatMessage[] };
  steps: { from: number; items: Array<Record<string, unknown>> };
  pending?: unknown;
};
const part = (store: ReturnType<typeof mapStore>, index: number) =>
  structuredClone(store.data.get(`checkpoint:run1:${index}`)) as StoredPart;
const NOT_A_RUN = { kind: "invalid", reason: "the saved steps do not add up to a run" };

describe("a checkpoint log that does not add up is refused", () => {
  it("a part whose messages start after the end of those before it (a lost part)", async () => {
    const { store, checkpoints, final } = await savedRun(3);
    expect(await checkpoints.load("run1")).toEqual({ kind: "found", state: final, parts: 3 });
    const last = part(store, 2);
    expect(last.messages.from).toBe(5);
    store.data.set("checkpoint:run1:2", { ...last, messages: { ...last.messages, from: 6 } });
    expect(await checkpoints.load("run1")).toEqual(NOT_A_RUN);
  });

  it("a part whose steps start after the end of those before it", async () => {
    const { store, checkpoints } = await savedRun(3);
    const last = part(store, 2);
    store.data.set("checkpoint:run1:2", { ...last, steps: { ...last.steps, from: 3 } });
    expect(await checkpoints.load("run1")).toEqual(NOT_A_RUN);
  });

  it("a call whose observation is neither stored with it nor a tool message of its part", async () => {
    const { store, checkpoints } = await savedRun(2);
    const last = part(store, 1);
    // The tool message dropped: the call stored without its observation now has none.
    store.data.set("checkpoint:run1:1", { ...last, messages: { ...last.messages, items: last.messages.items.slice(0, 1) } });
    expect(await checkpoints.load("run1")).toEqual(NOT_A_RUN);
  });

  it("a log copied under another run's key", async () => {
    const { store, checkpoints } = await savedRun(2);
    for (const index of [0, 1]) store.data.set(`checkpoint:run2:${index}`, part(store, index));
    expect(await checkpoints.load("run2")).toEqual(NOT_A_RUN);
    expect(await checkpoints.load("run1")).toMatchObject({ kind: "found" });
  });

  it("a log whose first part lost its head (who asked, where, what)", async () => {
    const { store, checkpoints } = await savedRun(2);
    const { head: _head, ...headless } = part(store, 0);
    store.data.set("checkpoint:run1:0", headless);
    expect(await checkpoints.load("run1")).toEqual(NOT_A_RUN);
  });
});

describe("what a checkpoint writer promises", () => {
  it("the loaded state waits on the last part's pending step, and on none once the last part has none", async () => {
    const store = mapStore();
    const checkpoints = createCheckpointStore(store);
    const writer = checkpoints.writer("run1");
    const messages: ChatMessage[] = [{ role: "user", content: "q" }];
    const first: PendingStep = { index: 1, startedAt: 1, text: null, calls: [{ id: "w1", name: "post", arguments: "{}" }], done: [] };
    const second: PendingStep = { ...first, index: 2, calls: [{ id: "w2", name: "post", arguments: '{"b":1}' }] };
    await writer.save(state(messages, [], first));
    await writer.save(state(messages, [], second));
    const waiting = await checkpoints.load("run1");
    expect(waiting.kind === "found" && waiting.state.pending).toEqual(second);
    await writer.save(state(messages, []));
    const done = await checkpoints.load("run1");
    expect(done.kind === "found" && "pending" in done.state).toBe(false);
  });

  it("a writer cleared and used again writes a log that loads, from its first part", async () => {
    const { store, checkpoints, writer } = await savedRun(2);
    await writer.clear();
    expect([...store.data.keys()].filter((key) => key.startsWith("checkpoint:"))).toEqual([]);
    expect(await checkpoints.load("run1")).toEqual({ kind: "missing" });
    const again = stepWithCall(1);
    const restarted = state([{ role: "user", content: "q" }, ...again.messages], [again.step]);
    await writer.save(restarted);
    expect(await checkpoints.load("run1")).toEqual({ kind: "found", state: restarted, parts: 1 });
  });

  it("a writer cleared and used again with the arrays it saved before, grown, writes them whole", async () => {
    const store = mapStore();
    const checkpoints = createCheckpointStore(store);
    const writer = checkpoints.writer("run1");
    const messages: ChatMessage[] = [{ role: "user", content: "q" }];
    const steps: StepRecord[] = [];
    await writer.save(state(messages, steps));
    await writer.clear();
    const added = stepWithCall(1);
    messages.push(...added.messages);
    steps.push(added.step);
    await writer.save(state(messages, steps));
    expect(await checkpoints.load("run1")).toEqual({ kind: "found", state: state(messages, steps), parts: 1 });
  });

  it("a writer that continues a loaded log appends after its last part", async () => {
    const { checkpoints, final } = await savedRun(2);
    const loaded = await checkpoints.load("run1");
    if (loaded.kind !== "found") throw new Error(loaded.kind);
    const writer = checkpoints.writer("run1", loaded);
    const added = stepWithCall(3);
    const next = state([...final.messages, ...added.messages], [...final.steps, added.step]);
    await writer.save(next);
    expect(await checkpoints.load("run1")).toEqual({ kind: "found", state: next, parts: 3 });
  });
});
