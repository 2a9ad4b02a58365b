// `/usage` says how many of the prompt tokens the model server read from its prompt cache.
import { describe, expect, it } from "vitest";
import { priceTable } from "../../src/cost/prices.js";
import { usageCommandText } from "../../src/cost/usage-text.js";
import { addUsage } from "../../src/memory/run-records/usage-counters.js";
import { mapStore } from "../support/map-store.js";

describe("the chat usage text", () => {
  it("shows the cached tokens beside the total when the server reported some, and prices them lower", async () => {
    const store = mapStore();
    const at = Date.parse("2026-12-01T10:00:00Z");
    const where = { at, surface: "slack", workspace: "T1", channel: "C1", person: "U1", runs: 1 };
    await addUsage(store, { ...where, model: "gpt-4o-mini", usage: { prompt: 1_000_000, cached: 800_000, completion: 0 } });
    await addUsage(store, { ...where, channel: "C2", model: "gpt-4o-mini", usage: { prompt: 1_000_000, cached: 0, completion: 0 } });
    const text = await usageCommandText(
      store,
      { surface: "slack", channel: "C1", workspace: "T1" },
      priceTable(),
      Date.parse("2026-12-01T12:00:00Z"),
    );
    expect(text).toContain("• This channel today: 1,000,000 tokens (800,000 cached), 1 run, $0.09");
    expect(text).toContain("• The workspace today: 2,000,000 tokens (800,000 cached), 2 runs, $0.24");
  });
});
