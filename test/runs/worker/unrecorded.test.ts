// A run that is not recorded (the console's `ask`: its caller waits in this process, and no
// later start could take it up) writes no checkpoints, which nothing would ever read; a
// recorded message still writes them after each step.
import { afterEach, describe, expect, it } from "vitest";
import { call, ScriptedModel, say } from "../../support/model-scripted.js";
import type { KeyValueStore } from "../../../src/memory/types.js";
import { startService, type ServiceHarness } from "../../support/service-harness.js";
import { temporaryFolder } from "../../support/temporary-folder.js";
import { until } from "../../support/until.js";

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function harnessRecordingWrites(model: ScriptedModel): Promise<{ harness: ServiceHarness; written: string[] }> {
  const folder = await temporaryFolder();
  cleanup.push(() => folder.remove());
  const written: string[] = [];
  const recording = (store: KeyValueStore): KeyValueStore => ({
    ...store,
    set: (key, value, ttlMs) => {
      written.push(key);
      return store.set(key, value, ttlMs);
    },
  });
  const harness = await startService({ model, storeUrl: `sqlite://${folder.path}/runs.sqlite`, wrapStore: recording });
  cleanup.push(() => harness.close());
  return { harness, written };
}

const origin = { surface: "console" as const, conversationKey: "console:checkpoints", requester: { id: "alice" }, place: {} };
const twoSteps = () => new ScriptedModel([call("calculator", { expression: "6*7" }), say("42")]);

describe("checkpoints", () => {
  it("a console run answers without writing a checkpoint", async () => {
    const { harness, written } = await harnessRecordingWrites(twoSteps());
    expect(await harness.service.ask({ origin, text: "what is 6*7" }, () => {})).toMatchObject({ status: "answered", answer: "42" });
    expect(written.filter((key) => key.startsWith("checkpoint:"))).toEqual([]);
  });

  it("a recorded message writes one before its first step and after each step that goes on", async () => {
    const { harness, written } = await harnessRecordingWrites(twoSteps());
    const finished: unknown[] = [];
    harness.service.attach("console", {
      tools: [],
      present: () => ({
        sink: () => {},
        async finish(outcome) {
          finished.push(outcome);
          return { messageId: "shown" };
        },
        fail: async () => {},
      }),
    });
    expect(await harness.service.submit({ origin, text: "what is 6*7" }, "C1:1.0001")).toMatchObject({ kind: "accepted" });
    await until(() => finished.length === 1, "the answer");
    expect(finished).toMatchObject([{ status: "answered", answer: "42" }]);
    expect(written.filter((key) => key.startsWith("checkpoint:"))).toHaveLength(2);
  });
});
