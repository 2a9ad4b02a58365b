// Long-term memory speed: a deduplicated write (one new fact) and a recall (top 8) in ONE
// conversation holding 100, 1,000 and 10,000 facts, on SQLite (a temporary file) and on
// Redis when a redis-server binary is installed. Median milliseconds per call.
// Target: ≤ 2 ms for each at 1,000 facts on SQLite.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { silentLogger } from "../src/logger.js";
import { openStore } from "../src/memory/keyv-store.js";
import { createLongTermMemory, encodeFacts, factsKey } from "../src/memory/long-term-memory.js";
import type { Fact, KeyValueStore } from "../src/memory/types.js";
import { redisServerInstalled, startRedisServer } from "../test/support/redis-server.js";

const SIZES = [100, 1_000, 10_000];
const RECALL_LIMIT = 8;

interface Row {
  readonly store: string;
  readonly facts: number;
  readonly write: number;
  readonly recall: number;
  readonly coldRecall: number;
}

export async function run(): Promise<void> {
  const rows: Row[] = [];
  const folder = await mkdtemp(join(tmpdir(), "bot-memory-bench-"));
  try {
    const sqlite = await openStore(`sqlite://${join(folder, "bench.sqlite")}`, silentLogger);
    rows.push(...(await measureStore("SQLite", sqlite)));
    await sqlite.close();
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
  if (redisServerInstalled()) {
    const server = await startRedisServer();
    try {
      const redis = await openStore(server.url, silentLogger);
      rows.push(...(await measureStore("Redis", redis)));
      await redis.close();
    } finally {
      await server.stop();
    }
  } else {
    console.log("(Redis skipped: redis-server is not installed)");
  }
  printTable(rows);
}

async function measureStore(name: string, store: KeyValueStore): Promise<Row[]> {
  const rows: Row[] = [];
  const words = new Words(42);
  for (const size of SIZES) {
    const key = `bench:${name}:${size}`;
    await store.set(factsKey(key), encodeFacts(Array.from({ length: size }, (_, index) => words.fact(index))));
    // The cap equals the size, so every write evicts one fact and the conversation stays at `size`.
    const memory = createLongTermMemory(store, { maxFacts: size, logger: silentLogger });
    const repetitions = size >= 10_000 ? 30 : 100;
    await memory.recall(key, words.sentence(6), RECALL_LIMIT);
    const write = await medianMs(repetitions, () => memory.remember(key, [words.sentence(8)]));
    const recall = await medianMs(repetitions, () => memory.recall(key, words.sentence(6), RECALL_LIMIT));
    // A process that has not seen the conversation yet parses it and builds its n-gram index.
    const coldRecall = await medianMs(5, () =>
      createLongTermMemory(store, { maxFacts: size, logger: silentLogger }).recall(key, words.sentence(6), RECALL_LIMIT),
    );
    rows.push({ store: name, facts: size, write, recall, coldRecall });
    await store.delete(factsKey(key));
  }
  return rows;
}

async function medianMs(repetitions: number, operation: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < repetitions; i += 1) {
    const start = performance.now();
    await operation();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] ?? Number.NaN;
}

function printTable(rows: readonly Row[]): void {
  const header = ["store", "facts", "dedup write ms", "recall top 8 ms", "cold recall ms", "target (1,000 on SQLite)"];
  const lines = rows.map((row) => [
    row.store,
    row.facts.toLocaleString("en"),
    row.write.toFixed(2),
    row.recall.toFixed(2),
    row.coldRecall.toFixed(2),
    row.store === "SQLite" && row.facts === 1_000 ? (row.write <= 2 && row.recall <= 2 ? "met (≤ 2 ms)" : "MISSED (> 2 ms)") : "",
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...lines.map((line) => (line[column] ?? "").length)));
  const format = (cells: readonly string[]): string => cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join("  ");
  console.log(format(header));
  for (const line of lines) console.log(format(line));
}

/** Deterministic made-up words, so runs compare. */
class Words {
  private readonly vocabulary: string[];
  private seed: number;

  constructor(seed: number) {
    this.seed = seed;
    this.vocabulary = Array.from({ length: 3_000 }, () => this.word());
  }

  fact(index: number): Fact {
    // Ids and timestamps shaped like real ones, so the stored record has its real size.
    const at = Date.UTC(2025, 0, 1) + index * 60_000;
    return {
      id: `seed${String(index).padStart(8, "0")}`,
      text: `User ${this.sentence(7)}`,
      createdAt: at,
      lastUsedAt: at,
      uses: index % 3,
    };
  }

  sentence(length: number): string {
    return Array.from({ length }, () => this.vocabulary[this.next() % this.vocabulary.length]).join(" ");
  }

  private word(): string {
    return Array.from({ length: 3 + (this.next() % 6) }, () => String.fromCharCode(97 + (this.next() % 26))).join("");
  }

  private next(): number {
    this.seed = (this.seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return this.seed;
  }
}
