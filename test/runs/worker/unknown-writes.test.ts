// The step that puts writes the saved state does not show back into it (src/runs/worker/unknown-writes.ts):
// without an `observe`, the model sees each result as it was; the step starts when its first write began.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { emptyGuardCounters, type RunState } from "../../../src/agent/loop/run-state.js";
import type { Tool, ToolContext } from "../../../src/contracts/types.js";
import { silentLogger } from "../../../src/logger.js";
import { withUnknownOutcomes } from "../../../src/runs/worker/unknown-writes.js";
import { createWriteLedger } from "../../../src/runs/worker/write-ledger.js";
import { mapStore } from "../../support/map-store.js";

const origin = { surface: "console", conversationKey: "c", requester: { id: "a" }, place: {} } as const;
const context = (callId: string): ToolContext => ({ signal: new AbortController().signal, runId: "run1", callId, origin });
const post: Tool<{ text: string }> = {
  name: "post",
  description: "posts",
  schema: z.object({ text: z.string() }),
  effect: "write",
  execute: async ({ text }) => `posted ${text}`,
};
const emptyState: RunState = {
  version: 1,
  runId: "run1",
  origin,
  question: "q",
  messages: [{ role: "user", content: "q" }],
  steps: [],
  guards: emptyGuardCounters,
  usage: { promptTokens: 0, completionTokens: 0 },
  elapsedMs: 0,
};

describe("writes put back into a state", () => {
  it("shows each result as it was and starts the step at the first write", async () => {
    let now = 1_000;
    const ledger = createWriteLedger(mapStore(), silentLogger, () => (now += 10));
    const guarded = ledger.guard(post);
    await guarded.execute({ text: "one" }, context("c1"));
    await guarded.execute({ text: "two" }, context("c2"));
    const entries = await ledger.entries("run1");
    const added = withUnknownOutcomes(emptyState, entries);
    const first = Math.min(...entries.map((entry) => entry.at));
    expect(Math.max(...entries.map((entry) => entry.at))).toBeGreaterThan(first);
    expect(added.state.steps).toMatchObject([{ startedAt: first, calls: [{ observation: "posted one" }, { observation: "posted two" }] }]);
    expect(added.state.guards.lastObservation).toBe("posted two");
  });
});
