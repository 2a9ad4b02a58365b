// Loop overhead per step, measured the way other agent frameworks were measured on this
// machine: one run = 30 steps (29 tool calls whose arguments differ every step, then a text
// answer) against a model that answers at once and an instant tool, step cap 40, no guard
// firing, starting from 10, 100 or 500 prior messages. µs per step = run time ÷ 30; warm up
// ≥ 3 s per history size, then the median and p90 of 30 runs, and the process RSS.
// Token counting and every guard are included. One TokenCounter serves every run (as in the
// service) while the history is rebuilt as new objects per run, so only counts by content help.
// The model streams its replies as pieces (as the real client does when the loop asks); a last
// table sets that beside a model that answers whole, by turns.
import { z } from "zod";
import { createLoopDeps } from "../src/agent/loop/loop-deps.js";
import { runAgent } from "../src/agent/loop/loop.js";
import type { LoopDeps } from "../src/agent/loop/loop-types.js";
import { ScriptedModel, call, say } from "../test/support/model-scripted.js";
import { TokenCounter } from "../src/tokens/token-counter.js";
import type { Model, TaskOrigin, Tool } from "../src/contracts/types.js";
import { loadConfig } from "../src/config.js";
import { pino } from "pino";
import { createLogger, silentLogger, type Logger } from "../src/logger.js";
import { priorHistory } from "./support/history.js";
import { InstantModel } from "./support/instant-model.js";
import { median, percentile, printTable, repeat, rssMegabytes, timeOnce, warmUp } from "./support/stats.js";

const STEPS = 30;
const HISTORY_SIZES = [10, 100, 500] as const;
const WARM_UP_MS = 3_000;
const RUNS = 30;
/** generateText (Vercel AI SDK) in µs per step, and the OpenAI Agents SDK in ms, at 10 / 100 / 500 messages. */
const AI_SDK_US: Record<number, number> = { 10: 85, 100: 98, 500: 185 };
const AGENTS_SDK_MS: Record<number, number> = { 10: 0.6, 100: 2.6, 500: 11.5 };
const TARGET_US: Record<number, number> = { 10: 45, 100: 50, 500: 95 };
/** The loop with its per-step info line on may cost at most this much more than with logs off. */
const LOGS_ON_TARGET = 1.3;
/** The loop with its model streaming (text pieces become events) may cost at most this much more than with whole replies. */
const STREAMING_TARGET = 1.3;

const origin: TaskOrigin = { surface: "console", conversationKey: "console:bench", requester: { id: "bench" }, place: {} };

const lookup: Tool<{ query: string }> = {
  name: "lookup",
  description: "Looks an item up.",
  schema: z.object({ query: z.string() }),
  effect: "read",
  execute: async ({ query }) => `found ${query}`,
};

interface Measured {
  readonly history: number;
  readonly medianUs: number;
  readonly p90Us: number;
  readonly rssMb: number;
}

/** A model whose script is replaced before each run, so the loop's dependencies are built once. */
interface BenchModel extends Model {
  startRun(tag: string): void;
}

/** ScriptedModel copies the messages on every call; shown beside the instant model for comparison. */
function scriptedModel(): BenchModel {
  let current = new ScriptedModel([]);
  return {
    name: "scripted",
    startRun(tag) {
      current = new ScriptedModel([], {
        whenExhausted: (_request, index) =>
          index < STEPS - 1 ? call(lookup.name, { query: `item ${tag}-${index + 1}` }) : say(`Done in run ${tag}.`),
      });
    },
    complete: (request, signal) => current.complete(request, signal),
  };
}

function benchDeps(model: Model, counter: TokenCounter, logger: Logger): LoopDeps {
  const guards = { ...loadConfig({}).guards, maxSteps: STEPS + 10 };
  return createLoopDeps({ model, modelName: "gpt-4o-mini", tools: [lookup], guards, counter, logger });
}

/**
 * One measured run's milliseconds, with the loop set up by `deps`. `label` keeps two runners' runs
 * apart: without it the second of a pair asks what the first did, and counts it from the counter's cache.
 */
function runner(model: BenchModel, history: number, deps: LoopDeps, label = ""): () => Promise<number> {
  let runs = 0;
  const prepare = () => {
    runs += 1;
    const tag = `${label}${history}.${runs}`;
    model.startRun(tag);
    return { tag, context: priorHistory(history) };
  };
  const oneRun = async ({ tag, context }: ReturnType<typeof prepare>) => {
    const { outcome } = await runAgent(
      { runId: `bench-${tag}`, origin, question: `Check the items for run ${tag}.`, context },
      deps,
      () => {},
    );
    if (outcome.status !== "answered" || outcome.stop || outcome.steps.length !== STEPS) {
      throw new Error(
        `the benchmark run did not go as planned: ${outcome.status} after ${outcome.steps.length} steps${outcome.status === "answered" && outcome.stop ? `, ${outcome.stop.detail}` : ""}`,
      );
    }
  };
  return () => timeOnce(prepare, oneRun);
}

async function measure(model: BenchModel, counter: TokenCounter, history: number, warmUpMs: number): Promise<Measured> {
  const measureOnce = runner(model, history, benchDeps(model, counter, silentLogger));
  await warmUp(warmUpMs, measureOnce);
  const perStepUs = (await repeat(RUNS, measureOnce)).map((ms) => (ms * 1000) / STEPS);
  return { history, medianUs: median(perStepUs), p90Us: percentile(perStepUs, 90), rssMb: rssMegabytes() };
}

/** Pairs of runs in a comparison by turns: each pair is short, so many pairs are cheap. */
const PAIRS = 200;

interface ByTurns {
  readonly offUs: number;
  readonly onUs: number;
  readonly offBestUs: number;
  readonly onBestUs: number;
}

/**
 * Two set-ups of the loop run by turns (off, on, off, on…) so that other load on the machine
 * weighs on both alike: the median and the fastest µs per step of each. On a busy machine the
 * fastest runs show the cost of the code itself best.
 */
async function byTurns(off: () => Promise<number>, on: () => Promise<number>, warmUpMs: number): Promise<ByTurns> {
  await warmUp(warmUpMs, async () => (await off()) + (await on()));
  const offUs: number[] = [];
  const onUs: number[] = [];
  for (let index = 0; index < PAIRS; index++) {
    offUs.push(((await off()) * 1000) / STEPS);
    onUs.push(((await on()) * 1000) / STEPS);
  }
  return { offUs: median(offUs), onUs: median(onUs), offBestUs: Math.min(...offUs), onBestUs: Math.min(...onUs) };
}

/** Logs off beside logs at info. */
function compareLogs(model: BenchModel, counter: TokenCounter, history: number, warmUpMs: number, infoLogger: Logger) {
  const off = runner(model, history, benchDeps(model, counter, silentLogger));
  const on = runner(model, history, benchDeps(model, counter, infoLogger));
  return byTurns(off, on, warmUpMs);
}

/** A model that answers whole beside one that streams the same replies as pieces. */
function compareStreaming(counter: TokenCounter, history: number, warmUpMs: number) {
  const whole = new InstantModel(STEPS - 1, lookup.name, { streams: false });
  const streamed = new InstantModel(STEPS - 1, lookup.name);
  return byTurns(
    runner(whole, history, benchDeps(whole, counter, silentLogger), "W"),
    runner(streamed, history, benchDeps(streamed, counter, silentLogger), "S"),
    warmUpMs,
  );
}

/** One row of a comparison by turns. */
function byTurnsRow(history: number, { offUs, onUs, offBestUs, onBestUs }: ByTurns, target: number): string[] {
  return [
    String(history),
    offUs.toFixed(1),
    onUs.toFixed(1),
    `${(onUs / offUs).toFixed(2)}×`,
    offBestUs.toFixed(1),
    onBestUs.toFixed(1),
    `${(onBestUs / offBestUs).toFixed(2)}×`,
    onUs / offUs <= target ? "yes" : "NO",
  ];
}

const ratio = (ours: number, theirs: number) => `${(ours / theirs).toFixed(2)}×`;

export async function run(): Promise<void> {
  const counter = TokenCounter.forModel("gpt-4o-mini");
  counter.countText("load the tokenizer tables");
  const baselineMb = rssMegabytes();
  const instant = new InstantModel(STEPS - 1, lookup.name);

  const rows: Measured[] = [];
  for (const history of HISTORY_SIZES) rows.push(await measure(instant, counter, history, WARM_UP_MS));
  console.log(
    `Loop overhead, ${STEPS} steps per run, instant model and tool, median / p90 of ${RUNS} runs after ≥ ${WARM_UP_MS / 1000} s warm-up (node ${process.version})`,
  );
  printTable(
    ["history", "median µs/step", "p90 µs/step", "RSS MB", "vs AI SDK", "vs Agents SDK", "target µs", "met"],
    rows.map((row) => [
      String(row.history),
      row.medianUs.toFixed(1),
      row.p90Us.toFixed(1),
      row.rssMb.toFixed(0),
      `${ratio(row.medianUs, AI_SDK_US[row.history]!)} of ${AI_SDK_US[row.history]}`,
      `${ratio(row.medianUs, AGENTS_SDK_MS[row.history]! * 1000)} of ${AGENTS_SDK_MS[row.history]} ms`,
      String(TARGET_US[row.history]),
      row.medianUs <= TARGET_US[row.history]! ? "yes" : "NO",
    ]),
  );

  console.log(`(RSS before the first run, with the o200k_base tables loaded: ${baselineMb.toFixed(0)} MB)`);

  // Production logs one info line per step; written here to /dev/null through the same synchronous destination as stderr.
  const infoLogger = createLogger("info", pino.destination({ dest: "/dev/null", sync: true }));
  const withLogs: Array<{ history: number } & ByTurns> = [];
  for (const history of HISTORY_SIZES)
    withLogs.push({ history, ...(await compareLogs(instant, counter, history, WARM_UP_MS / 3, infoLogger)) });
  console.log(
    `\nLogs off beside the per-step info line on (LOG_LEVEL=info, to /dev/null), runs taken by turns; target ≤ ${LOGS_ON_TARGET}×:`,
  );
  printTable(
    ["history", "logs off µs/step", "logs info µs/step", "ratio", "fastest off", "fastest info", "ratio", "met"],
    withLogs.map((row) => byTurnsRow(row.history, row, LOGS_ON_TARGET)),
  );

  const streaming: Array<{ history: number } & ByTurns> = [];
  for (const history of HISTORY_SIZES) streaming.push({ history, ...(await compareStreaming(counter, history, WARM_UP_MS / 3)) });
  console.log(
    `\nThe model answering whole beside streaming the same replies as pieces, runs taken by turns; target ≤ ${STREAMING_TARGET}×:`,
  );
  printTable(
    ["history", "whole µs/step", "streamed µs/step", "ratio", "fastest whole", "fastest streamed", "ratio", "met"],
    streaming.map((row) => byTurnsRow(row.history, row, STREAMING_TARGET)),
  );

  const scripted: Measured[] = [];
  for (const history of HISTORY_SIZES) scripted.push(await measure(scriptedModel(), counter, history, WARM_UP_MS / 3));
  console.log("\nFor comparison, the same runs with ScriptedModel (copies the messages on every call):");
  printTable(
    ["history", "median µs/step", "p90 µs/step"],
    scripted.map((row) => [String(row.history), row.medianUs.toFixed(1), row.p90Us.toFixed(1)]),
  );
}
