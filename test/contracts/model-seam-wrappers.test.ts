// Every model that wraps another (metrics, metering, usage reports, stored images) passes a
// request's onDelta on, so a streamed step streams whichever wrappers a run's model has.
import { describe, expect, it } from "vitest";
import { meteredModel } from "../../src/agent/models/metered-model.js";
import type { ContentPart, Model, ModelDelta, ModelRequest } from "../../src/contracts/types.js";
import { createFileStore } from "../../src/files/file-store.js";
import { withStoredImages } from "../../src/files/stored-images.js";
import { instrumentModel } from "../../src/ops/instrument.js";
import { createMetrics } from "../../src/ops/metrics.js";
import { reportingUsage } from "../../src/runs/setup/usage-reporting-model.js";
import { TokenCounter } from "../../src/tokens/token-counter.js";
import { mapStore } from "../support/map-store.js";
import { say, ScriptedModel } from "../support/model-scripted.js";

const storedImage: ContentPart = {
  type: "image",
  file: { id: "F1", name: "shot.png", mime: "image/png", size: 1_000 },
  mime: "image/png",
  width: 100,
  height: 100,
  source: { stored: { conversationKey: "console:test", fileId: "F1" } },
};

const wrappers: ReadonlyArray<readonly [string, (model: Model) => Model]> = [
  ["instrumentModel (metrics)", (model) => instrumentModel(model, createMetrics())],
  ["meteredModel (token limits)", (model) => meteredModel(model, TokenCounter.forModel("gpt-4o-mini"), () => {})],
  ["reportingUsage (fact extraction's usage)", (model) => reportingUsage(model, () => {})],
  ["withStoredImages (image bytes put in)", (model) => withStoredImages(model, createFileStore(mapStore()))],
];

const requests: ReadonlyArray<readonly [string, ModelRequest]> = [
  ["text alone", { messages: [{ role: "user", content: "hello there" }], tools: [] }],
  ["a stored image", { messages: [{ role: "user", content: [{ type: "text", text: "see" }, storedImage] }], tools: [] }],
];

describe.each(wrappers)("%s", (_name, wrap) => {
  it.each(requests)("passes onDelta on with %s", async (_what, request) => {
    const deltas: ModelDelta[] = [];
    const reply = await wrap(new ScriptedModel([say("streamed through")])).complete(
      { ...request, onDelta: (delta) => deltas.push(delta) },
      new AbortController().signal,
    );
    expect(reply.content).toBe("streamed through");
    expect(deltas).toEqual([
      { kind: "text", text: "streamed" },
      { kind: "text", text: " through" },
    ]);
  });
});
