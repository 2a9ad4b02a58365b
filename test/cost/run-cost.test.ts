// A run's cost priced per endpoint that answered: an endpoint's own prices (the settings file's
// models section) under its name, else its model's; the calls besides the steps at the run's model.
import { describe, expect, it } from "vitest";
import { priceOf, priceTable, pricedName } from "../../src/cost/prices.js";
import { runCost, usageByPricedName } from "../../src/cost/run-cost.js";

const EU = "gpt-4o-mini@https://eu.example/v1";
const LOCAL = "llama3.1@http://127.0.0.1:11434/v1";
const prices = priceTable({}, { [`${EU}/`]: { prices: { input: 0.3, output: 1.2 } }, [LOCAL]: {} });

describe("an endpoint's price", () => {
  it("is its own when the settings give it one (a trailing slash in the key changes nothing), cached at input unless said", () => {
    expect(priceOf(prices, EU)).toEqual({ input: 0.3, cached: 0.3, output: 1.2 });
    expect(pricedName(prices, EU)).toBe(EU);
  });

  it("is its model's otherwise, and an unknown model's endpoint has none", () => {
    expect(priceOf(prices, "gpt-4o-mini@https://api.openai.com/v1")).toEqual(priceOf(prices, "gpt-4o-mini"));
    expect(pricedName(prices, "gpt-4o-mini@https://api.openai.com/v1")).toBe("gpt-4o-mini");
    expect(priceOf(prices, LOCAL)).toBeUndefined();
    expect(pricedName(prices, LOCAL)).toBe("llama3.1");
  });
});

describe("a run's cost", () => {
  const usage = (prompt: number, completion: number, cached = 0) => ({ prompt, completion, cached });

  it("prices each endpoint's steps at its price and the rest at the run's model", () => {
    const run = {
      model: "gpt-4o",
      usage: usage(3_000_000, 300_000),
      endpoints: { "gpt-4o@https://api.openai.com/v1": usage(1_000_000, 100_000), [EU]: usage(1_000_000, 100_000) },
    };
    expect(usageByPricedName(prices, run)).toEqual(
      new Map([
        ["gpt-4o", usage(2_000_000, 200_000)],
        [EU, usage(1_000_000, 100_000)],
      ]),
    );
    const dollars = 2 * 2.5 + 0.2 * 10 + 1 * 0.3 + 0.1 * 1.2;
    expect(runCost(prices, run).dollars).toBeCloseTo(dollars, 9);
  });

  it("says how much is unpriced when an endpoint without a price answered", () => {
    const cost = runCost(prices, { model: "gpt-4o", usage: usage(1_500, 500), endpoints: { [LOCAL]: usage(1_500, 500) } });
    expect(cost).toEqual({ dollars: 0, unpricedTokens: 2_000, unpricedModels: ["llama3.1"] });
  });

  it("is the run's model's for a run recorded before endpoints were named", () => {
    const run = { model: "gpt-4o-mini", usage: usage(1_000_000, 0, 500_000) };
    expect(runCost(prices, run).dollars).toBeCloseTo(0.5 * 0.15 + 0.5 * 0.075, 9);
  });
});
