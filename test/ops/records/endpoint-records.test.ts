// Which endpoint answered each step, in the run record, its summary, the explorer and the usage
// counters, priced per endpoint; and a record written before endpoints were named
// (test/fixtures/run-record-before-endpoints.json, by a3e9cc6's own recorder) still loads, lists,
// shows and costs as it did.
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createEndpointBreakers } from "../../../src/agent/models/endpoint-breakers.js";
import { createFailoverModel } from "../../../src/agent/models/failover-model.js";
import { loadConfig } from "../../../src/config.js";
import { priceTable } from "../../../src/cost/prices.js";
import { ModelUnavailableError } from "../../../src/errors.js";
import { createAuditLog } from "../../../src/governance/audit-log.js";
import { silentLogger } from "../../../src/logger.js";
import { createLongTermMemory } from "../../../src/memory/long-term-memory.js";
import { createRunRecordStore } from "../../../src/memory/run-records/record-store.js";
import { RunRecordSchema, RunSummarySchema, type RunRecord } from "../../../src/memory/run-records/record-schema.js";
import { usageBetween } from "../../../src/memory/run-records/usage-counters.js";
import type { KeyValueStore } from "../../../src/memory/types.js";
import { createExplorerHandler } from "../../../src/ops/explorer/explorer-handler.js";
import { createRunRecording } from "../../../src/ops/records/run-recording.js";
import { createAgentService } from "../../../src/runs/service/create-agent-service.js";
import { mapStore } from "../../support/map-store.js";
import { call, ScriptedModel, say } from "../../support/model-scripted.js";

const TOKEN = "admin-token-for-tests-0123456789";
const A = "gpt-4o-mini@https://a.example/v1";
const B = "llama3.1@http://127.0.0.1:11434/v1";
const fixture = JSON.parse(readFileSync(new URL("../../fixtures/run-record-before-endpoints.json", import.meta.url), "utf8")) as {
  readonly values: Record<string, unknown>;
};
const oldRunId = (RunRecordSchema.parse(Object.entries(fixture.values).find(([key]) => key.startsWith("runs:record:"))![1]) as RunRecord)
  .runId;
/** The settings file gives the local endpoint its own prices. */
const prices = priceTable({}, { [B]: { prices: { input: 1, cached: 0.5, output: 2 } } });

const closing: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

async function explorer(store: KeyValueStore) {
  const handler = createExplorerHandler({
    token: TOKEN,
    trustedProxies: 0,
    records: createRunRecordStore(store, { days: 30, max: 1_000 }),
    store,
    prices,
    feedback: { totals: async () => ({ up: 0, down: 0 }) },
    audit: createAuditLog(store),
    memory: createLongTermMemory(store, { maxFacts: 10, logger: silentLogger }),
    tools: () => [],
    settings: () => ({ settings: [] }),
    logger: silentLogger,
  });
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  closing.push(() => new Promise((resolve) => server.close(() => resolve())));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const get = async (path: string) => {
    const response = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(response.status).toBe(200);
    return response;
  };
  return {
    api: async (path: string) => (await (await get(`/admin/api/${path}`)).json()) as Record<string, any>,
    page: async (path: string) => (await get(`/admin/${path}`)).text(),
  };
}

/** One run of two steps: the first answered by A, the second by B after A failed. */
async function failedOverRun(store: KeyValueStore): Promise<RunRecord> {
  const config = loadConfig({ STORE_URL: "sqlite://data/unused.sqlite", MEMORY_EXTRACT_FACTS: "false" });
  const recording = createRunRecording({ config, store, logger: silentLogger, prices });
  const failing = new ModelUnavailableError({ cause: "the model server is failing (503)", fix: "", retryable: true, status: 503 });
  const a = new ScriptedModel(
    [{ ...call("calculator", { expression: "6*7" }), usage: { promptTokens: 1_000_000, completionTokens: 0 } }, { error: failing }],
    {
      name: "gpt-4o-mini",
    },
  );
  const b = new ScriptedModel([say("It is 42.", { promptTokens: 1_000_000, completionTokens: 1_000_000, cachedTokens: 500_000 })]);
  const model = createFailoverModel({
    endpoints: [
      { name: A, model: a, contextWindow: 128_000 },
      { name: B, model: b, contextWindow: 128_000 },
    ],
    breakers: createEndpointBreakers({ failuresToOpen: 3, coolDownMs: 30_000 }),
    maxRetries: 3,
    logger: silentLogger,
  });
  const service = createAgentService({ config, model, store, logger: silentLogger, observers: [recording.recorder] });
  await service.start();
  closing.push(() => service.close());
  const origin = { surface: "console" as const, conversationKey: "console:records", requester: { id: "alice" }, place: {} };
  await service.ask({ origin, text: "what is 6*7?" }, () => {});
  await recording.recorder.flushed();
  const listed = await createRunRecordStore(store, { days: 30, max: 1_000 }).list({ limit: 10 });
  const loaded = await createRunRecordStore(store, { days: 30, max: 1_000 }).load(listed.runs[0]!.runId);
  if (loaded.kind !== "found") throw new Error(`no record: ${loaded.kind}`);
  return loaded.record;
}

describe("a run whose step moved to another endpoint", () => {
  it("is recorded with the endpoint of each step and the move, and priced per endpoint", async () => {
    const store = mapStore();
    const record = await failedOverRun(store);
    expect(record.steps.map((step) => [step.endpoint, step.switches])).toEqual([
      [A, undefined],
      [B, [{ from: A, to: B, cause: "503 from a.example" }]],
    ]);
    const { api, page: html } = await explorer(store);
    // A's million prompt tokens at gpt-4o-mini's $0.15; B's at its own prices: 0.5 M × $1 + 0.5 M cached × $0.5 + 1 M out × $2.
    const dollars = 0.15 + 0.5 + 0.25 + 2;
    expect((await api(`runs/${record.runId}`)).cost).toBeCloseTo(dollars, 9);
    const [listed] = (await api("runs")).runs;
    expect(listed).toMatchObject({ endpoints: { [A]: { prompt: 1_000_000 }, [B]: { cached: 500_000 } } });
    expect(listed.cost).toBeCloseTo(dollars, 9);
    const page = await html(`runs/${record.runId}`);
    expect(page).toContain("Model: llama3.1 answered instead of gpt-4o-mini: 503 from a.example");
    expect(page).toContain("2,000,000 tokens (500,000 cached) · llama3.1@http://127.0.0.1:11434/v1");
    expect(page).toContain("$2.90");
  });

  it("counts its tokens in the daily usage under the name each endpoint is priced by", async () => {
    const store = mapStore();
    await failedOverRun(store);
    const [day] = await usageBetween(store, Date.now() - 60_000, Date.now());
    const all = day!.dimensions.find((dimension) => dimension.kind === "all")!;
    expect([...all.byModel.keys()].sort()).toEqual([B, "gpt-4o-mini"].sort());
    expect(all.byModel.get(B)).toMatchObject({ prompt: 1_000_000, cached: 500_000, completion: 1_000_000 });
    expect(all.byModel.get("gpt-4o-mini")).toMatchObject({ prompt: 1_000_000, completion: 0 });
    expect(all.counts.get("runs")).toBe(1);
  });
});

describe("a record written before endpoints were named", () => {
  it("loads, shows and costs as before (every token at the run's model), and its summary still reads", async () => {
    const values = Object.entries(fixture.values);
    for (const [key, value] of values) {
      if (key.startsWith("runs:record:")) expect(RunRecordSchema.safeParse(value).success).toBe(true);
      if (key.startsWith("runs:summary:")) expect(RunSummarySchema.safeParse(value).success).toBe(true);
    }
    const store = mapStore();
    for (const [key, value] of values) await store.set(key, value);
    const { api, page: html } = await explorer(store);
    const run = await api(`runs/${oldRunId}`);
    expect(run.steps.map((step: { endpoint?: string }) => step.endpoint)).toEqual([undefined, undefined]);
    expect(run.cost).toBeCloseTo(((2_460 - 2_176) * 0.15 + 2_176 * 0.075 + 28 * 0.6) / 1_000_000, 12);
    const page = await html(`runs/${oldRunId}`);
    expect(page).toContain("1,220 tokens (1,024 cached)</h3>");
    expect(page).not.toContain("answered instead of");
  });
});
