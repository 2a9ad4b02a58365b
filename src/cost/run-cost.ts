// What a run's tokens cost, priced per endpoint that actually answered: the steps each endpoint
// answered at that endpoint's price (its own, else its model's), and the rest of the run's tokens
// (the calls besides the steps: compaction, the guard's summary) at the run's model, whose
// endpoint asks first. A run recorded before endpoints were named is all at its model.
import type { RecordUsage } from "../memory/run-records/record-schema.js";
import { addCost, NO_COST, type CostSum, type PriceTable, pricedName } from "./prices.js";

/** A run record or its summary, as far as its cost goes. */
export interface PricedRun {
  /** The run's model (OPENAI_MODEL or its channel's). */
  readonly model: string;
  readonly usage: RecordUsage;
  /** Of `usage`, the steps' by the endpoint that answered them. */
  readonly endpoints?: Readonly<Record<string, RecordUsage>>;
}

/** The run's tokens by the name they are priced and counted under. */
export function usageByPricedName(prices: PriceTable, run: PricedRun): Map<string, RecordUsage> {
  const sums = new Map<string, RecordUsage>();
  const add = (name: string, usage: RecordUsage) => {
    const sum = sums.get(name);
    sums.set(
      name,
      sum ? { prompt: sum.prompt + usage.prompt, cached: sum.cached + usage.cached, completion: sum.completion + usage.completion } : usage,
    );
  };
  let rest = run.usage;
  for (const [endpoint, usage] of Object.entries(run.endpoints ?? {})) {
    add(pricedName(prices, endpoint), usage);
    rest = {
      prompt: Math.max(0, rest.prompt - usage.prompt),
      cached: Math.max(0, rest.cached - usage.cached),
      completion: Math.max(0, rest.completion - usage.completion),
    };
  }
  if (rest.prompt + rest.completion > 0 || sums.size === 0) add(run.model, rest);
  return sums;
}

export function runCost(prices: PriceTable, run: PricedRun): CostSum {
  let sum = NO_COST;
  for (const [name, usage] of usageByPricedName(prices, run)) sum = addCost(sum, prices, name, usage);
  return sum;
}
