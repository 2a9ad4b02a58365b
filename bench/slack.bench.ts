// Event → ack latency of the Slack adapter in HTTP mode (mounted on the process's port, as a bot
// runs it): signed app_mention events at 200 per second while 50 long runs are in flight (a
// model that takes 200 ms per call). Target: p99 ≤ 20 ms.
// The fake Slack and the load generator run in a worker thread, so the main thread holds only
// what a bot process holds: the adapter, the agent service, the store. The figures are only as
// steady as the machine: on a shared 2-core box, other processes show up in the tail.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { isMainThread, parentPort, Worker } from "node:worker_threads";
import { once } from "node:events";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { createAgentService } from "../src/runs/service/create-agent-service.js";
import type { Model, ModelReply, ModelRequest } from "../src/contracts/types.js";
import { loadConfig } from "../src/config.js";
import { TokenCounter } from "../src/tokens/token-counter.js";
import { silentLogger } from "../src/logger.js";
import { openStore } from "../src/memory/keyv-store.js";
import { createGovernance } from "../src/governance/governance.js";
import { fixedSettings } from "../src/governance/settings-source.js";
import { attach } from "../src/adapters/core/attach.js";
import { createSlackSurface } from "../src/adapters/slack/slack-adapter.js";
import { eventsUrlOf, startSlackEventsPort } from "../test/support/slack-events-port.js";
import { BOT_USER_ID, startFakeSlack } from "../test/support/fake-slack.js";
import { mentionEvent, postEvent, SIGNING_SECRET } from "../test/support/fake-slack-requests.js";
import { contentText } from "../src/agent/content.js";

const RATE_PER_SECOND = 200;
const DURATION_SECONDS = 5;
const BACKGROUND_RUNS = 50;
const MODEL_CALL_MS = 200;
const LONG_RUN_STEPS = 60;
const TARGET_P99_MS = 20;
const WARM_UP_EVENTS = 50;

type ToWorker = { kind: "events_url"; url: string } | { kind: "measure" } | { kind: "close" };
type FromWorker =
  | { kind: "api_url"; url: string }
  | { kind: "background_sent" }
  | { kind: "latencies"; values: number[]; seconds: number }
  | { kind: "closed" };

/** Long runs ("long …") keep calling a tool; every other question is answered in one call. Once `finishing`, all answer at once. */
function benchModel(): Model & { calls: number; finishing: boolean } {
  let ids = 0;
  return {
    name: "bench",
    calls: 0,
    finishing: false,
    async complete(request: ModelRequest, signal: AbortSignal): Promise<ModelReply> {
      this.calls += 1;
      if (this.finishing) return { content: "done", toolCalls: [] };
      await sleep(MODEL_CALL_MS, undefined, { signal });
      const question = contentText([...request.messages].reverse().find((m) => m.role === "user")?.content ?? "");
      const steps = request.messages.filter((m) => m.role === "assistant" && (m.toolCalls?.length ?? 0) > 0).length;
      if (question.startsWith("long") && request.tools.length > 0 && steps < LONG_RUN_STEPS) {
        ids += 1;
        return { content: null, toolCalls: [{ id: `c${ids}`, name: "calculator", arguments: JSON.stringify({ expression: `${ids}+1` }) }] };
      }
      return { content: "done", toolCalls: [] };
    },
  };
}

/** Worker side: the fake Slack and the sender of signed events. */
async function loadGenerator(port: NonNullable<typeof parentPort>): Promise<void> {
  const fake = await startFakeSlack();
  const send = (message: FromWorker) => port.postMessage(message);
  let ts = 1_700_000_000;
  const nextTs = () => `${++ts}.000100`;
  let eventsUrl = "";
  send({ kind: "api_url", url: fake.apiUrl });
  port.on("message", async (message: ToWorker) => {
    if (message.kind === "events_url") {
      eventsUrl = message.url;
      for (let i = 0; i < BACKGROUND_RUNS; i++)
        await postEvent(eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> long task ${i}`, ts: nextTs() }));
      send({ kind: "background_sent" });
    } else if (message.kind === "measure") {
      const latencies: number[] = [];
      const total = RATE_PER_SECOND * DURATION_SECONDS;
      for (let i = 0; i < WARM_UP_EVENTS; i++)
        await postEvent(eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> warm up ${i}`, ts: nextTs() }));
      const started = performance.now();
      const sends: Promise<void>[] = [];
      for (let i = 0; i < total; i++) {
        const wait = started + (i * 1000) / RATE_PER_SECOND - performance.now();
        if (wait > 0) await sleep(wait);
        const event = mentionEvent({ text: `<@${BOT_USER_ID}> quick ${i}`, ts: nextTs() });
        const before = performance.now();
        sends.push(
          postEvent(eventsUrl, event).then((response) => {
            if (response.status !== 200) throw new Error(`event ${i} answered ${response.status}`);
            latencies.push(performance.now() - before);
          }),
        );
      }
      await Promise.all(sends);
      send({ kind: "latencies", values: latencies, seconds: (performance.now() - started) / 1000 });
    } else {
      await fake.close();
      send({ kind: "closed" });
      port.close();
    }
  });
}

const percentile = (sorted: readonly number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

async function next<K extends FromWorker["kind"]>(worker: Worker, kind: K): Promise<Extract<FromWorker, { kind: K }>> {
  for (;;) {
    const [message] = (await once(worker, "message")) as [FromWorker];
    if (message.kind === kind) return message as Extract<FromWorker, { kind: K }>;
  }
}

export async function run(): Promise<void> {
  // The worker runs this same file, loaded through tsx (workers do not inherit its loader).
  const self = JSON.stringify(import.meta.url);
  const worker = new Worker(`import("tsx/esm/api").then(({ tsImport }) => tsImport(${self}, ${self}));`, { eval: true });
  const folder = mkdtempSync(join(tmpdir(), "slack-bench-"));
  const { url: apiUrl } = await next(worker, "api_url");
  const config = loadConfig({
    STORE_URL: `sqlite://${join(folder, "bench.sqlite")}`,
    MEMORY_EXTRACT_FACTS: "false",
    // Exactly the 50 long runs execute; the measured events are acknowledged and queue behind them.
    MAX_CONCURRENT_RUNS: String(BACKGROUND_RUNS),
    AGENT_MAX_STEPS: String(LONG_RUN_STEPS + 5),
    SLACK_BOT_TOKEN: "xoxb-bench",
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: apiUrl,
    PORT: "0",
  });
  const store = await openStore(config.storeUrl, silentLogger);
  const model = benchModel();
  const service = createAgentService({ config, model, store, logger: silentLogger });
  // The core's commands need governance; the runs here go without a settings file, as they did before.
  const governance = createGovernance({
    source: fixedSettings(),
    store,
    logger: silentLogger,
    model: model.name,
    maxSteps: config.guards.maxSteps,
  });
  const port = await startSlackEventsPort();
  const surface = createSlackSurface({
    config: config.slack!,
    logger: silentLogger,
    counter: TokenCounter.forModel(config.model.name),
    httpMount: port,
  });
  const adapter = attach(surface, { service, governance, store, logger: silentLogger });
  await adapter.start();
  await service.start();
  port.open();

  worker.postMessage({ kind: "events_url", url: eventsUrlOf(port) } satisfies ToWorker);
  await next(worker, "background_sent");
  const deadline = Date.now() + 30_000;
  while (model.calls < BACKGROUND_RUNS) {
    if (Date.now() > deadline) throw new Error(`only ${model.calls} of ${BACKGROUND_RUNS} long runs started within 30 s`);
    await sleep(10);
  }
  const callsBefore = model.calls;
  const lag = monitorEventLoopDelay({ resolution: 5 });
  lag.enable();
  worker.postMessage({ kind: "measure" } satisfies ToWorker);
  const { values, seconds } = await next(worker, "latencies");
  lag.disable();
  const modelCallsPerSecond = (model.calls - callsBefore) / seconds;

  model.finishing = true;
  await adapter.stopIntake(8_000);
  await service.close(30_000);
  await adapter.close();
  await port.close();
  await store.close();
  worker.postMessage({ kind: "close" } satisfies ToWorker);
  await next(worker, "closed");
  rmSync(folder, { recursive: true, force: true });

  const sorted = [...values].sort((a, b) => a - b);
  const p99 = percentile(sorted, 99);
  console.log(
    `events: ${values.length} at ${(values.length / seconds).toFixed(0)}/s, ${BACKGROUND_RUNS} long runs in flight, ${modelCallsPerSecond.toFixed(0)} model calls/s`,
  );
  console.log(`ack latency: p50 ${percentile(sorted, 50).toFixed(2)} ms, p99 ${p99.toFixed(2)} ms, max ${sorted.at(-1)!.toFixed(2)} ms`);
  console.log(`bot event-loop delay meanwhile: p99 ${(lag.percentile(99) / 1e6).toFixed(1)} ms, max ${(lag.max / 1e6).toFixed(1)} ms`);
  console.log(`target p99 ≤ ${TARGET_P99_MS} ms: ${p99 <= TARGET_P99_MS ? "met" : "NOT met"}`);
}

if (!isMainThread && parentPort) await loadGenerator(parentPort);
