// Failover under load: 50 runs at once (two steps each: a tool call, then the answer) with the
// real openai SDK against two fake OpenAI servers on 127.0.0.1, A as OPENAI_BASE_URL and B as
// MODEL_FALLBACKS, wired as the app wires them (chooseModel), each answer taking 25 ms at B.
// Waves of 50: A healthy (the baseline); A starting to answer 429 (its breaker closed: the runs
// already asking A pay one 429 each); A still 429 (the breaker open); A still 429 after the
// cool-down (one probe).
//
// Extra delay of an answer: the time its steps spent on A before moving to B (from each step's
// start to its model_switched event). One breaker probe: the duration of the half-open probe's
// call to A in the last wave, measured the same way. Targets: once A has failed (the breaker
// open, then probing), p99 extra delay ≤ one probe; calls to A while its breaker is open: 0
// (counted by the fake server as each request arrives). The cold start is shown apart: runs that
// were already asking A when its first 429 came back each pay that one 429, never more.
import { chooseModel } from "../src/app-model.js";
import { loadConfig } from "../src/config.js";
import type { Model } from "../src/contracts/types.js";
import { runAgent } from "../src/agent/loop/loop.js";
import { silentLogger } from "../src/logger.js";
import { errorReply, type FakeResponse, startFakeOpenAI, textReply, toolCallReply } from "../test/support/fake-openai-server.js";
import { consoleOrigin, loopDeps } from "../test/support/loop-harness.js";
import { percentile } from "./support/stats.js";

const RUNS = 50;
const ANSWER_MS = 25;
/** Longer than a wave takes on a busy machine, so the open wave sees no probe. */
const COOL_DOWN_MS = 5_000;

/** B, and A while healthy: a calculator call, then the answer once the result is in. */
const answering = (request: { body: { messages: { role: string }[] } }): FakeResponse => ({
  ...(request.body.messages.at(-1)?.role === "tool"
    ? textReply("It is 42.")
    : toolCallReply([{ name: "calculator", args: { expression: "6*7" } }])),
  delayMs: ANSWER_MS,
});

interface RunTiming {
  readonly totalMs: number;
  /** Time spent on A before moving to B, summed over the run's steps. */
  readonly extraMs: number;
  /** Calls to A that failed in this run. */
  readonly failedAtA: number;
  readonly answer: string;
}

async function oneRun(model: Model, index: number): Promise<RunTiming> {
  const started = performance.now();
  const stepStarts = new Map<number, number>();
  let extraMs = 0;
  let failedAtA = 0;
  const result = await runAgent(
    {
      runId: `run-${index}`,
      origin: consoleOrigin,
      question: "what is 6*7?",
      context: [{ role: "system", content: "You are a test agent." }],
    },
    loopDeps(model),
    (event) => {
      if (event.type === "step_started") stepStarts.set(event.step, performance.now());
      // The first move of a step ends the time spent on A.
      if (event.type === "model_switched" && event.cause.startsWith("429 from")) failedAtA += 1;
      if (event.type === "model_switched" && stepStarts.has(event.step)) {
        extraMs += performance.now() - stepStarts.get(event.step)!;
        stepStarts.delete(event.step);
      }
    },
  );
  return {
    totalMs: performance.now() - started,
    extraMs,
    failedAtA,
    answer: result.outcome.status === "answered" ? result.outcome.answer : "(paused)",
  };
}

const ms = (value: number) => `${value.toFixed(1)} ms`;

export async function run(): Promise<void> {
  const a = await startFakeOpenAI();
  const b = await startFakeOpenAI();
  let aMode: "healthy" | "429" = "healthy";
  let aWhileOpen = 0;
  let aName = "";
  let breakerState: () => string = () => "closed";
  a.enqueue(
    ...Array.from({ length: 2_000 }, () => (request: Parameters<typeof answering>[0]) => {
      if (breakerState() === "open") aWhileOpen += 1;
      return aMode === "healthy" ? answering(request) : errorReply(429, "Rate limit reached for requests");
    }),
  );
  b.enqueue(...Array.from({ length: 2_000 }, () => answering));
  const config = loadConfig({
    OPENAI_API_KEY: "sk-bench",
    OPENAI_BASE_URL: a.baseUrl,
    OPENAI_MODEL: "gpt-4o-mini",
    MODEL_FALLBACKS: `gpt-4o@${b.baseUrl}`,
    MODEL_BREAKER_FAILURES: "3",
    MODEL_BREAKER_COOLDOWN_MS: String(COOL_DOWN_MS),
  });
  const chosen = await chooseModel(config, silentLogger, { models: {}, env: {} });
  if (chosen.kind !== "remote" || !chosen.breakers) throw new Error("expected a model with fallbacks");
  const { breakers } = chosen;
  aName = `gpt-4o-mini@${a.baseUrl}`;
  breakerState = () => breakers.health(aName).state;

  const wave = async (name: string) => {
    const callsBefore = a.requests.length;
    const openBefore = aWhileOpen;
    const timings = await Promise.all(Array.from({ length: RUNS }, (_, index) => oneRun(chosen.model, index)));
    const wrong = timings.filter((timing) => timing.answer !== "It is 42.").length;
    const extra = timings.map((timing) => timing.extraMs);
    const total = timings.map((timing) => timing.totalMs);
    console.log(
      `${name}: answers p50 ${ms(percentile(total, 50))}, p99 ${ms(percentile(total, 99))}; extra delay p50 ${ms(percentile(extra, 50))}, p99 ${ms(percentile(extra, 99))}; calls to A ${a.requests.length - callsBefore} (while open: ${aWhileOpen - openBefore}); breaker ${breakerState()}${wrong > 0 ? `; ${wrong} runs without the answer` : ""}`,
    );
    return { extra, total, mostFailedAtA: Math.max(...timings.map((timing) => timing.failedAtA)) };
  };

  await wave("warm-up, A healthy");
  const baseline = await wave("A healthy (baseline)");
  aMode = "429";
  const cold = await wave("A answers 429, breaker closed at the start");
  const open = await wave("A answers 429, breaker open");
  await new Promise((resolve) => setTimeout(resolve, COOL_DOWN_MS));
  const probeCallsBefore = a.requests.length;
  const probed = await wave("A answers 429, after the cool-down");
  const probeMs = Math.max(...probed.extra);
  const probes = a.requests.length - probeCallsBefore;
  console.log(
    `One breaker probe (the half-open call to A after the cool-down): ${ms(probeMs)}, ${probes} call${probes === 1 ? "" : "s"} to A in that wave`,
  );
  const known = [...open.extra, ...probed.extra];
  console.log(
    `Extra delay once A is known to fail (breaker open, then probing): p99 ${ms(percentile(known, 99))} · target ≤ one probe (${ms(probeMs)}): ${percentile(known, 99) <= probeMs ? "met" : "missed"}`,
  );
  console.log(
    `Cold start: each run paid at most ${cold.mostFailedAtA} failed call${cold.mostFailedAtA === 1 ? "" : "s"} to A (${RUNS} runs asked A at once before its first 429 came back); extra delay p99 ${ms(percentile(cold.extra, 99))}`,
  );
  console.log(
    `Answers p99 against the baseline: ${ms(percentile(baseline.total, 99))} healthy, ${ms(percentile(cold.total, 99))} cold, ${ms(percentile(open.total, 99))} open; calls to A while its breaker was open: ${aWhileOpen} · target 0: ${aWhileOpen === 0 ? "met" : "missed"}`,
  );
  await a.close();
  await b.close();
}
