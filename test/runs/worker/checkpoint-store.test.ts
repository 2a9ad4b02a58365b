// Checkpoints as a log of deltas: what is written per step, and what a load accepts.
import { describe, expect, it } from "vitest";
import type { RunState } from "../../../src/agent/loop/run-state.js";
import type { ChatMessage, StepRecord } from "../../../src/contracts/types.js";
import { createCheckpointStore } from "../../../src/runs/worker/checkpoint-store.js";
import { mapStore } from "../../support/map-store.js";
import { emptyStep, runState } from "../../support/run-states.js";

const state = (messages: ChatMessage[], steps: StepRecord[]): RunState => runState({ messages, steps });
const step = emptyStep;

describe("checkpoint store", () => {
  it("writes only what a step added, and loads the whole state back", async () => {
    const store = mapStore();
    const checkpoints = createCheckpointStore(store);
    const writer = checkpoints.writer("run1");
    const messages: ChatMessage[] = [
      { role: "system", content: "s" },
      { role: "user", content: "q" },
    ];
    const steps: StepRecord[] = [];
    for (let index = 1; index <= 3; index++) {
      const callId = `c${index}`;
      messages.push(
        { role: "assistant", content: null, toolCalls: [{ id: callId, name: "calc", arguments: "{}" }] },
        { role: "tool", toolCallId: callId, content: `observed ${index}` },
      );
      const full = index === 2 ? "a much longer result than the model saw" : `observed ${index}`;
      steps.push({
        ...step(index),
        calls: [
          {
            callId,
            tool: "calc",
            args: "{}",
            signature: "calc#1",
            outcome: "ok",
            result: full,
            observation: `observed ${index}`,
            durationMs: 1,
          },
        ],
      });
      await writer.save(state(messages, steps));
    }
    const parts = [...store.data.entries()].filter(([key]) => key.startsWith("checkpoint:run1:"));
    expect(parts).toHaveLength(3);
    expect((parts[2]![1] as { messages: { from: number; items: unknown[] } }).messages.from).toBe(6);
    // Each observation is stored once, as the tool message.
    expect(JSON.stringify(parts[2]![1]).split("observed 3")).toHaveLength(2);
    const loaded = await checkpoints.load("run1");
    expect(loaded).toMatchObject({ kind: "found", parts: 3 });
    expect(loaded.kind === "found" && loaded.state).toEqual(state(messages, steps));
  });

  it("writes the messages whole again after they were replaced (folded, compacted)", async () => {
    const store = mapStore();
    const checkpoints = createCheckpointStore(store);
    const writer = checkpoints.writer("run1");
    const before: ChatMessage[] = [
      { role: "user", content: "long" },
      { role: "assistant", content: "x" },
    ];
    await writer.save(state(before, [step(1)]));
    const folded: ChatMessage[] = [{ role: "user", content: "short" }];
    await writer.save(state(folded, [step(1)]));
    const loaded = await checkpoints.load("run1");
    expect(loaded.kind === "found" && loaded.state.messages).toEqual(folded);
  });

  it("refuses an altered or older-version log, and removes every part", async () => {
    const store = mapStore();
    const checkpoints = createCheckpointStore(store);
    const writer = checkpoints.writer("run1");
    await writer.save(state([{ role: "user", content: "q" }], [step(1)]));
    await writer.save(state([{ role: "user", content: "q" }], [step(1), step(2)]));
    store.data.set("checkpoint:run1:1", { ...(store.data.get("checkpoint:run1:1") as object), version: 0 });
    expect(await checkpoints.load("run1")).toMatchObject({ kind: "invalid" });
    store.data.set("checkpoint:run1:1", { ...(store.data.get("checkpoint:run1:1") as object), version: 1, steps: { from: 9, items: [] } });
    expect(await checkpoints.load("run1")).toMatchObject({ kind: "invalid", reason: "the saved steps do not add up to a run" });
    expect(await checkpoints.load("other")).toEqual({ kind: "missing" });
    await checkpoints.remove("run1");
    expect([...store.data.keys()].filter((key) => key.startsWith("checkpoint:"))).toEqual([]);
  });

  it("keeps the run's data-block boundary, and loads a log written before there was one without it", async () => {
    const store = mapStore();
    const checkpoints = createCheckpointStore(store);
    const writer = checkpoints.writer("run1");
    const first = { ...state([{ role: "user", content: "q" }], []), boundary: "0123456789ab" };
    await writer.save(first);
    await writer.save({ ...first, messages: [...first.messages, { role: "assistant", content: "a" }] });
    expect(await checkpoints.load("run1")).toMatchObject({ kind: "found", parts: 2, state: { boundary: "0123456789ab" } });

    const before = checkpoints.writer("run2");
    await before.save(runState({ runId: "run2", messages: [{ role: "user", content: "q" }] }));
    const loaded = await checkpoints.load("run2");
    expect(loaded.kind).toBe("found");
    if (loaded.kind === "found") expect(loaded.state).not.toHaveProperty("boundary");
  });
});
