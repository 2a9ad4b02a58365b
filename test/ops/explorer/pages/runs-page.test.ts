// The runs list's outcome cell as a person reads it: a guard's name where a guard stopped the run
// or the model could not be reached, and no "(stopped)" after a person's Stop.
import { describe, expect, it } from "vitest";
import { outcomeCell } from "../../../../src/ops/explorer/pages/runs-page.js";

const text = (cell: unknown) => String(cell).replace(/<[^>]+>/g, "");

describe("the outcome cell", () => {
  it.each([
    ["guard", "repeat", "guard (repeat)"],
    ["failed", "model_unavailable", "failed (model_unavailable)"],
    ["stopped", "stopped", "stopped"],
    ["answered", undefined, "answered"],
  ])("%s with %s reads %j", (outcome, guard, shown) => {
    expect(text(outcomeCell(outcome, guard))).toBe(shown);
  });
});
