// The run explorer over 100,000 stored runs on SQLite (a temporary file): the server time of the
// runs page (unfiltered, filtered, deep in the cursor, a text search) and of a run page; a record
// write (record, summary, indexes, usage counters) off the answer path; the replay of 1,000
// stored runs; and the cacheable prefix share of a conversation's runs, with its token counts.
// Targets: runs page ≤ 150 ms, run page ≤ 50 ms, record write ≤ 1 ms median, replay ≤ 10 s.
import { mkdtemp, rm, stat } from "node:fs/promises";
import { createServer, type RequestListener } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { call, say, ScriptedModel } from "../test/support/model-scripted.js";
import { loadConfig } from "../src/config.js";
import { priceTable } from "../src/cost/prices.js";
import { createAuditLog } from "../src/governance/audit-log.js";
import { silentLogger } from "../src/logger.js";
import { openStore } from "../src/memory/keyv-store.js";
import { createLongTermMemory } from "../src/memory/long-term-memory.js";
import type { RunRecord } from "../src/memory/run-records/record-schema.js";
import { createRunRecordStore } from "../src/memory/run-records/record-store.js";
import { addUsage } from "../src/memory/run-records/usage-counters.js";
import type { KeyValueStore } from "../src/memory/types.js";
import { createExplorerHandler } from "../src/ops/explorer/explorer-handler.js";
import { createAgentService } from "../src/runs/service/create-agent-service.js";
import { createRunRecording } from "../src/ops/records/run-recording.js";
import { replayRecord } from "../src/ops/replay/replay-run.js";
import { median, percentile } from "./support/stats.js";

const RUNS = 100_000;
const TOKEN = "bench-admin-token-0123456789";
const REPEATS = 15;
const origin = (conversation: string) => ({
  surface: "console" as const,
  conversationKey: conversation,
  requester: { id: "alice" },
  place: {},
});

/** Records of six runs in one conversation, made by the real service and recorder (the last has five earlier turns). */
async function conversationRecords(store: KeyValueStore): Promise<RunRecord[]> {
  const config = loadConfig({ STORE_URL: "sqlite://data/unused.sqlite", MEMORY_EXTRACT_FACTS: "false" });
  const recording = createRunRecording({ config, store, logger: silentLogger });
  const answer = "The deploy goes to staging first and to production after an approval in the release channel; rollbacks take one command.";
  const model = new ScriptedModel([], {
    whenExhausted: (request, index) =>
      request.messages.at(-1)?.role === "tool"
        ? say(`${answer} (${index})`, { promptTokens: 900, completionTokens: 40 })
        : { ...call("calculator", { expression: `${index}*7` }), usage: { promptTokens: 850, completionTokens: 12 } },
  });
  const service = createAgentService({ config, model, store, logger: silentLogger, observers: [recording.recorder] });
  await service.start();
  const records: RunRecord[] = [];
  for (const question of [
    "How do deploys work?",
    "And staging?",
    "How do I roll back?",
    "Who gets paged?",
    "Can I read prod logs?",
    "Same for batch jobs?",
  ]) {
    const outcome = await service.ask({ origin: origin("console:bench"), text: question }, () => {});
    await recording.recorder.flushed();
    const loaded = await recording.records.load(outcome.runId);
    if (loaded.kind === "found") records.push(loaded.record);
  }
  await service.close();
  await recording.close();
  return records;
}

function variant(template: RunRecord, index: number, base: number): RunRecord {
  const guard = index % 10 === 0;
  return {
    ...template,
    runId: `bench-${index}`,
    conversationKey: `slack:T1:C${index % 50}:${index % 5_000}`,
    channel: `C${index % 50}`,
    workspace: "T1",
    surface: index % 3 === 0 ? "discord" : "slack",
    requester: { id: `U${index % 400}`, name: `Person ${index % 400}` },
    question: index === 77_777 ? "where is the needle?" : `question ${index} about topic ${index % 97}`,
    startedAt: base - index * 30_000,
    endedAt: base - index * 30_000 + 2_000,
    outcome: guard ? "guard" : "answered",
    ...(guard
      ? { stop: { guard: "repeat", detail: "the same call 3 times", sentence: "Stopped: the same call was repeated 3 times." } }
      : {}),
  };
}

function timedServer(handler: RequestListener, samples: Map<string, number[]>) {
  return createServer((request, response) => {
    const started = performance.now();
    const key = request.headers["x-bench"] as string;
    response.on("finish", () => samples.set(key, [...(samples.get(key) ?? []), performance.now() - started]));
    handler(request, response);
  });
}

export async function run(): Promise<void> {
  const folder = await mkdtemp(join(tmpdir(), "bot-explorer-bench-"));
  try {
    const path = join(folder, "bench.sqlite");
    const store = await openStore(`sqlite://${path}`, silentLogger);
    const conversation = await conversationRecords(store);
    console.log("Cacheable prefix of each run's first request (the previous run's in the same conversation):");
    for (const [index, record] of conversation.entries())
      if (record.prefix)
        console.log(
          `  run ${index + 1}: ${record.prefix.shared} of ${record.prefix.total} tokens (${((record.prefix.shared / record.prefix.total) * 100).toFixed(1)}%)`,
        );
    const template = conversation.at(-1)!;

    const records = createRunRecordStore(store, { days: 400, max: 1_000_000 });
    const base = Date.now();
    const seedStarted = performance.now();
    for (let start = 0; start < RUNS; start += 100)
      await Promise.all(
        Array.from({ length: Math.min(100, RUNS - start) }, (_, offset) => records.save(variant(template, start + offset, base))),
      );
    console.log(
      `Seeded ${RUNS.toLocaleString("en-US")} runs in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s; file ${((await stat(path)).size / 1e6).toFixed(0)} MB (record ${JSON.stringify(template).length} bytes).`,
    );

    // A record write as the recorder does it, off the answer path: record, summary, indexes, usage counters.
    const writes: number[] = [];
    for (let index = 0; index < 1_000; index++) {
      const record = variant(template, RUNS + index, base + 60_000 + index);
      const started = performance.now();
      await records.save(record);
      await addUsage(store, {
        at: record.endedAt,
        surface: record.surface,
        channel: record.channel,
        person: record.requester.id,
        model: record.settings.model,
        usage: record.usage,
        runs: 1,
        outcomes: { [record.outcome]: 1 },
      });
      writes.push(performance.now() - started);
    }
    console.log(`Record write: median ${median(writes).toFixed(3)} ms, p95 ${percentile(writes, 95).toFixed(3)} ms (target ≤ 1 ms median)`);

    const handler = createExplorerHandler({
      token: TOKEN,
      trustedProxies: 0,
      records,
      store,
      prices: priceTable(),
      feedback: { totals: async () => ({ up: 0, down: 0 }) },
      audit: createAuditLog(store),
      memory: createLongTermMemory(store, { maxFacts: 10, logger: silentLogger }),
      tools: () => [],
      settings: () => ({ settings: [] }),
      logger: silentLogger,
    });
    const samples = new Map<string, number[]>();
    const server = timedServer(handler, samples);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const get = async (key: string, path: string) => {
      const response = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${TOKEN}`, "x-bench": key } });
      const body = await response.text();
      if (response.status !== 200) throw new Error(`${path}: ${response.status} ${body.slice(0, 200)}`);
      return body;
    };
    let cursor = "";
    for (let page = 0; page < 40; page++) cursor = /cursor=([\w-]+)/.exec(await get("warm", `/admin/?cursor=${cursor}`))?.[1] ?? "";
    const since = new Date(base - 20 * 24 * 60 * 60_000).toISOString().slice(0, 10);
    const until = new Date(base - 10 * 24 * 60 * 60_000).toISOString().slice(0, 10);
    const pages: Array<readonly [string, string]> = [
      ["runs page, newest 50", "/admin/"],
      ["runs page, channel + outcome", "/admin/?channel=C7&outcome=guard"],
      ["runs page, one person", "/admin/?user=U123"],
      ["runs page, surface + 10 days", `/admin/?surface=slack&since=${since}&until=${until}`],
      ["runs page, 40 pages deep", `/admin/?cursor=${cursor}`],
      ["runs page, text search (bounded scan)", "/admin/?q=needle"],
      ["runs API, guard, limit 200", "/admin/api/runs?guard=repeat&limit=200"],
      ["run page", "/admin/runs/bench-50000"],
    ];
    for (const [key, path] of pages) for (let index = 0; index < REPEATS; index++) await get(key, path);
    console.log(
      `Server time over ${RUNS.toLocaleString("en-US")} stored runs (median / p95 of ${REPEATS}; targets: runs page ≤ 150 ms, run page ≤ 50 ms):`,
    );
    for (const [key] of pages)
      console.log(
        `  ${key.padEnd(40)} ${median(samples.get(key)!).toFixed(1).padStart(7)} ms / ${percentile(samples.get(key)!, 95).toFixed(1)} ms`,
      );
    server.close();

    // Replay of 1,000 stored runs, as `npm run replay` does: list, load, replay.
    const replayStarted = performance.now();
    let replayed = 0;
    let same = 0;
    let next: string | undefined;
    const prices = priceTable();
    while (replayed < 1_000) {
      const page = await records.list({ limit: 200, ...(next ? { cursor: next } : {}) });
      for (const summary of page.runs) {
        const loaded = await records.load(summary.runId);
        if (loaded.kind !== "found") continue;
        const result = await replayRecord(loaded.record, {}, prices);
        replayed += 1;
        if (result.kind === "replayed" && result.changed.length === 0) same += 1;
      }
      next = page.next;
      if (!next) break;
    }
    console.log(
      `Replay of ${replayed} stored runs: ${((performance.now() - replayStarted) / 1000).toFixed(2)} s, ${same} reproduced exactly (target ≤ 10 s)`,
    );
    await store.close();
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}
