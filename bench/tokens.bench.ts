// Part 1, the worst inputs of issue 14: one long regex piece made js-tiktoken's merge take
// seconds to minutes (3,000 emoji 9.7 s, 4,000 CJK characters 10.4 s, 16,000 159 s, 200,000
// letters > 10 min) with the event loop blocked all along. Each row is a fresh text (no cache
// helps), counted or cut as the bot does, with its total time and the longest time the event
// loop was held. Targets: ≤ 50 ms held, ≤ 200 ms for 1 MB in all, ≤ 2 % over the exact count.
//
// Part 2, token counting over one 30-step run with 2 KB observations (29 tool calls, then an answer).
// Three ways to count, each with a fresh TokenCounter per repetition (a new conversation):
//   once         encode the final history a single time;
//   incremental  what the loop does: count the start, then each message as it is appended,
//                with each result going through the registry's observation cap first;
//   naive        count the whole history again before every model call.
// Target: incremental ≤ 1.5× once; naive is shown beside it (~15×).
// Counts per text piece are kept by the process-wide tokenizer (src/tokens/tokenizer.ts), so every
// way above profits from words seen before; the last row is the bare encoder on the same history,
// with no cache at all, for scale.
import { z } from "zod";
import { TokenCounter } from "../src/tokens/token-counter.js";
import { ToolRegistry } from "../src/agent/tools/tool-registry.js";
import { Tokenizer } from "../src/tokens/tokenizer.js";
import type { ChatMessage, Tool } from "../src/contracts/types.js";
import { observationText } from "./support/history.js";
import { median, printTable, timeOnce, warmUp } from "./support/stats.js";
import { worstCases } from "./support/token-worst-cases.js";
import { contentText } from "../src/agent/content.js";

const TOOL_STEPS = 29;
const OBSERVATION_CHARS = 2_048;
const OBSERVATION_TOKENS = 2_000;
const REPETITIONS = 15;
const WARM_UP_MS = 2_000;

const search: Tool<{ query: string }> = {
  name: "search",
  description: "Searches the incident database and returns the matching records.",
  schema: z.object({ query: z.string() }),
  effect: "read",
  execute: async () => "",
};

interface RunScript {
  readonly start: readonly ChatMessage[];
  /** Per step: the assistant's call and the tool's full result; the last step is the answer. */
  readonly steps: ReadonlyArray<{ readonly assistant: ChatMessage; readonly result?: string }>;
}

function script(seed: number): RunScript {
  const start: ChatMessage[] = [
    {
      role: "system",
      content: "You are an operations assistant. Use the tools to find facts, then answer briefly with the figures you found.",
    },
    { role: "user", content: `Which services breached their latency budget this week, and why? (run ${seed})` },
  ];
  const steps: Array<{ assistant: ChatMessage; result?: string }> = [];
  for (let step = 1; step <= TOOL_STEPS; step++) {
    const id = `call_${step}`;
    steps.push({
      assistant: {
        role: "assistant",
        content: null,
        toolCalls: [{ id, name: search.name, arguments: JSON.stringify({ query: `latency breach week ${seed} page ${step}` }) }],
      },
      result: observationText(OBSERVATION_CHARS, seed * 100 + step),
    });
  }
  steps.push({
    assistant: {
      role: "assistant",
      content: "Three services breached the budget: checkout (retries), search (cold cache) and billing (cron ran twice).",
    },
  });
  return { start, steps };
}

/** The loop's way: count the start once, then only what each step appends. */
function countIncrementally(run: RunScript, withObservationCap: boolean): number {
  const counter = new TokenCounter("o200k_base");
  const registry = new ToolRegistry([search], { defaultTimeoutMs: 1_000, observationTokens: OBSERVATION_TOKENS, counter });
  let tokens = counter.countMessages(run.start) + counter.countTools(registry.schemas);
  for (const [index, step] of run.steps.entries()) {
    tokens += counter.countMessage(step.assistant);
    if (step.result === undefined) continue;
    const content = withObservationCap ? registry.observation(step.result) : step.result;
    tokens += counter.countMessage({ role: "tool", toolCallId: `call_${index + 1}`, content });
  }
  return tokens;
}

/** The final history, and its length before each model call and at the end. */
function finalHistory(run: RunScript): { messages: ChatMessage[]; stepEnds: number[] } {
  const messages = [...run.start];
  const stepEnds = [messages.length];
  for (const [index, step] of run.steps.entries()) {
    messages.push(step.assistant);
    if (step.result !== undefined) messages.push({ role: "tool", toolCallId: `call_${index + 1}`, content: step.result });
    stepEnds.push(messages.length);
  }
  return { messages, stepEnds };
}

function countOnce(history: readonly ChatMessage[], registry: ToolRegistry): number {
  const counter = new TokenCounter("o200k_base");
  return counter.countMessages(history) + counter.countTools(registry.schemas);
}

function encodeBare(history: readonly ChatMessage[]): number {
  const tokenizer = Tokenizer.for("o200k_base");
  let tokens = 0;
  for (const message of history) tokens += tokenizer.encode(contentText(message.content)).length;
  return tokens;
}

/** Before every model call (and once at the end), the whole history is encoded again. */
function countNaively(history: readonly ChatMessage[], registry: ToolRegistry, stepEnds: readonly number[]): number {
  let last = 0;
  for (const length of stepEnds) last = countOnce(history.slice(0, length), registry);
  return last;
}

export async function run(): Promise<void> {
  await worstCases();
  const registry = new ToolRegistry([search], {
    defaultTimeoutMs: 1_000,
    observationTokens: OBSERVATION_TOKENS,
    counter: new TokenCounter("o200k_base"),
  });
  let seed = 0;
  const nextRun = () => script(++seed);

  const methods = {
    once: () =>
      timeOnce(
        () => finalHistory(nextRun()),
        async ({ messages }) => countOnce(messages, registry),
      ),
    incremental: () => timeOnce(nextRun, async (run) => countIncrementally(run, false)),
    loop: () => timeOnce(nextRun, async (run) => countIncrementally(run, true)),
    naive: () =>
      timeOnce(
        () => finalHistory(nextRun()),
        async ({ messages, stepEnds }) => countNaively(messages, registry, stepEnds),
      ),
    encoder: () =>
      timeOnce(
        () => finalHistory(nextRun()),
        async ({ messages }) => encodeBare(messages),
      ),
  };
  const sample = script(0);
  const totals = [countOnce(finalHistory(sample).messages, registry), countIncrementally(sample, false), countIncrementally(sample, true)];
  if (new Set(totals).size !== 1) throw new Error(`the three ways disagree on the count: ${totals.join(" / ")}`);

  await warmUp(WARM_UP_MS, async () => (await methods.once()) + (await methods.loop()));
  // Round-robin, so drift in the machine's load touches every method alike.
  const samples: Record<keyof typeof methods, number[]> = { once: [], incremental: [], loop: [], naive: [], encoder: [] };
  const names = Object.keys(methods) as Array<keyof typeof methods>;
  for (let repetition = 0; repetition < REPETITIONS; repetition++) for (const name of names) samples[name].push(await methods[name]());
  const figures = Object.fromEntries(names.map((name) => [name, median(samples[name])])) as Record<keyof typeof methods, number>;

  console.log(
    `Token counting for one run of ${TOOL_STEPS + 1} steps with ${OBSERVATION_CHARS}-character observations (${totals[0]!.toLocaleString("en-US")} tokens in the end), median of ${REPETITIONS}`,
  );
  const row = (label: string, ms: number, target: string) => [label, ms.toFixed(2), `${(ms / figures.once).toFixed(2)}×`, target];
  printTable(
    ["counting", "ms per run", "vs once", "target"],
    [
      row("once: the final history, fresh counter", figures.once, "1×"),
      row("incremental: each message once", figures.incremental, "≤ 1.5×"),
      row("incremental + observation cap (as the loop)", figures.loop, "≤ 1.5×"),
      row("naive: full recount every step", figures.naive, "~15×"),
      row("exact encoder (whole pieces) on the final history, no cache", figures.encoder, ""),
    ],
  );
}
