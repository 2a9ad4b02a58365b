// The JSON API under /admin/api/ (the session or `Authorization: Bearer <ADMIN_TOKEN>`):
// runs?surface=&workspace=<surface>:<id>&channel=&user=&outcome=&guard=&since=&until=&q=&limit=1..200&cursor= → { runs, next };
// runs/:id → the record with its cost; usage?since=&until=&workspace=<surface>:<id> → the usage report (of one workspace);
// conversations?workspace=&before= → { conversations (with their facts), next } (pages/conversations-page.ts).
import type { PriceTable } from "../../cost/prices.js";
import { runCost, type PricedRun } from "../../cost/run-cost.js";
import { pricedRunOf } from "../../memory/run-records/record-schema.js";
import type { PageHandler } from "./explorer-deps.js";
import { json } from "./http-io.js";
import { reportFor } from "./pages/usage-page.js";
import { runQueryOf, usageRangeOf } from "./query.js";

export const apiRuns: PageHandler = async ({ url, deps }) => {
  const parsed = runQueryOf(url.searchParams);
  if (parsed.kind === "invalid") return json(400, { error: parsed.message });
  try {
    const page = await deps.records.list(parsed.query);
    const runs = page.runs.map(({ indexes: _indexes, ...run }) => ({ ...run, cost: dollarsOf(deps.prices, run) }));
    return json(200, { runs, next: page.next ?? null });
  } catch (error) {
    if (error instanceof RangeError) return json(400, { error: `cursor: ${error.message}` });
    throw error;
  }
};

export const apiRun: PageHandler = async ({ params, deps }) => {
  const loaded = await deps.records.load(params[0]!);
  if (loaded.kind === "missing") return json(404, { error: "there is no record of that run" });
  if (loaded.kind === "invalid") return json(500, { error: `the record can't be read: ${loaded.reason}` });
  const { record } = loaded;
  return json(200, { ...record, cost: dollarsOf(deps.prices, pricedRunOf(record)) });
};

/** Dollars priced per endpoint that answered; null when any of it has no price. */
function dollarsOf(prices: PriceTable, run: PricedRun): number | null {
  const cost = runCost(prices, run);
  return cost.unpricedTokens === 0 ? cost.dollars : null;
}

export const apiUsage: PageHandler = async ({ url, deps, now }) => {
  const range = usageRangeOf(url.searchParams, now);
  if (range.kind === "invalid") return json(400, { error: range.message });
  const { since, until, workspace } = range.query;
  const report = await reportFor(deps, since, until, workspace);
  return json(200, { since, until, ...(workspace ? { workspace } : {}), ...report });
};
