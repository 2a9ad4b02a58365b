// 200 conversations at once through the real runner and store (SQLite, and Redis when
// installed), with a model that takes 200 ms per call and the default settings (fact
// extraction on): total time against the ideal (steps × latency ÷ parallelism).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAgentService } from "../src/runs/service/create-agent-service.js";
import type { Model, ModelRequest } from "../src/contracts/types.js";
import { loadConfig } from "../src/config.js";
import { silentLogger } from "../src/logger.js";
import { openStore } from "../src/memory/keyv-store.js";
import { redisServerInstalled, startRedisServer } from "../test/support/redis-server.js";
import { median } from "./support/stats.js";

const CONVERSATIONS = 200;
const LATENCY_MS = 200;
const STEPS_PER_RUN = 2;
const SETTLE_MS = 500;
/** Bursts before the measured ones: the first builds the tokenizer and opens the store, the next let the JIT settle (a bot runs for hours). */
const WARM_UP_BURSTS = 3;
/** One burst of 200 lasts 0.4 s, so a pause of the machine shows in it: the median of several is the figure. */
const MEASURED_BURSTS = { wide: 7, narrow: 1 };

/** First call asks for the calculator, the second answers, fact extraction finds nothing; every call takes LATENCY_MS. */
const slowModel: Model = {
  name: "bench-200ms",
  async complete(request: ModelRequest, signal: AbortSignal) {
    await new Promise((resolve, reject) => {
      const timer = setTimeout(resolve, LATENCY_MS);
      signal.addEventListener(
        "abort",
        () => {
          clearTimeout(timer);
          reject(signal.reason);
        },
        { once: true },
      );
    });
    if (request.responseFormat === "json_object") return { content: '{"facts":[]}', toolCalls: [] };
    const answered = request.messages.at(-1)?.role === "tool";
    return answered
      ? { content: "done", toolCalls: [] }
      : { content: null, toolCalls: [{ id: "c1", name: "calculator", arguments: '{"expression":"6*7"}' }] };
  },
};

interface Measured {
  /** The median burst's makespan. */
  readonly totalMs: number;
  /** The fastest and slowest burst. */
  readonly spread: readonly [number, number];
  readonly bursts: number;
  readonly idealMs: number;
}

async function measure(storeUrl: string, parallelism: number): Promise<Measured> {
  // The defaults otherwise (fact extraction on): extraction runs after the answer, outside the run slots.
  const config = loadConfig({ STORE_URL: storeUrl, MAX_CONCURRENT_RUNS: String(parallelism) });
  const store = await openStore(config.storeUrl, silentLogger);
  const service = createAgentService({ config, model: slowModel, store, logger: silentLogger });
  await service.start();
  const origin = (index: number) => ({
    surface: "console" as const,
    conversationKey: `bench:${storeUrl}:${parallelism}:${index}`,
    requester: { id: "bench" },
    place: {},
  });
  // Bursts as wide as the parallelism first, so the tokenizer, the store, the JIT and caches are warm, then let their writes settle.
  const width = Math.min(CONVERSATIONS, parallelism);
  for (let burst = 0; burst < WARM_UP_BURSTS; burst++) {
    await Promise.all(
      Array.from({ length: width }, (_, index) => service.ask({ origin: origin(-1 - burst * width - index), text: "warm up" }, () => {})),
    );
  }
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  const totals: number[] = [];
  const bursts = parallelism >= CONVERSATIONS ? MEASURED_BURSTS.wide : MEASURED_BURSTS.narrow;
  for (let burst = 0; burst < bursts; burst++) {
    const started = performance.now();
    const outcomes = await Promise.all(
      Array.from({ length: CONVERSATIONS }, (_, index) =>
        service.ask({ origin: origin(burst * CONVERSATIONS + index), text: "what is 6*7" }, () => {}),
      ),
    );
    totals.push(performance.now() - started);
    if (outcomes.some((outcome) => outcome.status !== "answered" || outcome.answer !== "done")) throw new Error("a run did not answer");
    // The fact extractions of the burst finish before the next one starts, as after any burst.
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  }
  await service.close();
  await store.close();
  return {
    totalMs: median(totals),
    spread: [Math.min(...totals), Math.max(...totals)],
    bursts,
    idealMs: Math.ceil(CONVERSATIONS / parallelism) * STEPS_PER_RUN * LATENCY_MS,
  };
}

async function report(label: string, storeUrl: (parallelism: number) => string): Promise<void> {
  for (const parallelism of [200, 8]) {
    const { totalMs, spread, bursts, idealMs } = await measure(storeUrl(parallelism), parallelism);
    const over = (((totalMs - idealMs) / idealMs) * 100).toFixed(1);
    const range = bursts > 1 ? `${spread[0].toFixed(0)}–${spread[1].toFixed(0)}` : "";
    console.log(
      `${label.padEnd(6)} | ${String(parallelism).padStart(11)} | ${String(bursts).padStart(6)} | ${totalMs.toFixed(0).padStart(8)} | ${range.padStart(9)} | ${String(idealMs).padStart(8)} | ${over.padStart(8)} %`,
    );
  }
}

export async function run(): Promise<void> {
  const folder = await mkdtemp(join(tmpdir(), "bench-runner-"));
  try {
    console.log(
      `${CONVERSATIONS} conversations, ${STEPS_PER_RUN} model calls each at ${LATENCY_MS} ms, default settings (fact extraction on: one more call after each answer)`,
    );
    console.log("store  | parallelism | bursts | total ms | range ms  | ideal ms | over ideal (median burst)");
    await report("SQLite", (parallelism) => `sqlite://${join(folder, `runner-${parallelism}.sqlite`)}`);
    if (redisServerInstalled()) {
      const server = await startRedisServer();
      try {
        await report("Redis", () => server.url);
      } finally {
        await server.stop();
      }
    } else {
      console.log("(Redis skipped: redis-server is not installed)");
    }
    console.log("target: within 10 % of ideal (the makespan is until the last answer is shown)");
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}
