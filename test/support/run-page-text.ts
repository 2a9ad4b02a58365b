// The run page as its reader sees it (tags dropped), and a run record from a fixture file that an
// earlier version's recorder wrote.
import { readFileSync } from "node:fs";
import { priceTable } from "../../src/cost/prices.js";
import { RunRecordSchema, type RunRecord } from "../../src/memory/run-records/record-schema.js";
import type { ExplorerDeps, PageRequest } from "../../src/ops/explorer/explorer-deps.js";
import { runPage } from "../../src/ops/explorer/pages/run-page.js";

/** The one run record in `path` (a store's values by key, as the fixtures hold them). */
export function fixtureRecord(path: string): RunRecord {
  const stored = JSON.parse(readFileSync(path, "utf8")) as { values: Record<string, unknown> };
  const [raw] = Object.entries(stored.values).filter(([key]) => key.startsWith("runs:record:"));
  return RunRecordSchema.parse(raw![1]);
}

export async function runPageText(record: RunRecord): Promise<string> {
  const deps = { records: { load: async () => ({ kind: "found", record }) }, prices: priceTable({}) } as unknown as ExplorerDeps;
  const request = { params: [record.runId], deps, csrf: "", form: new URLSearchParams() } as unknown as PageRequest;
  const reply = await runPage(request);
  if (reply.type !== "html") throw new Error(`not a page: ${JSON.stringify(reply)}`);
  return reply.body.replace(/<[^>]+>/g, "").replace(/&#39;/g, "'");
}
