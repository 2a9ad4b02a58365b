// One bot process for the schedules bench: a real AgentService (the BullMQ work queue, a model
// that answers at once, a presenter that shows nothing) with schedules on the shared Redis.
//   schedule-process.ts <redis-url> <name>
// Prints "ready <ms the schedules' start took> <schedules armed>" once it fires slots; SIGTERM
// closes it and exits 0.
import { TokenCounter } from "../../src/tokens/token-counter.js";
import type { Model } from "../../src/contracts/types.js";
import { loadConfig } from "../../src/config.js";
import { createLogger } from "../../src/logger.js";
import { openStore } from "../../src/memory/keyv-store.js";
import { createAgentService } from "../../src/runs/service/create-agent-service.js";
import { createBullmqWorkQueue } from "../../src/runs/queue/bullmq-work-queue.js";
import { createBullmqSlotTimer } from "../../src/schedules/bullmq-slot-timer.js";
import { createSchedules } from "../../src/schedules/scheduler.js";

const [url, name] = process.argv.slice(2);
if (!url || !name) throw new Error("usage: schedule-process.ts <redis-url> <name>");

const logger = createLogger(process.env.LOG_LEVEL ?? "error");
const config = loadConfig({ STORE_URL: url, MEMORY_EXTRACT_FACTS: "false", APPROVAL_SECRET: "bench-secret-of-enough-length" });
const store = await openStore(url, logger);
const model: Model = { name: "instant", complete: async () => ({ content: "[SILENT]", toolCalls: [] }) };
const schedules = createSchedules({
  store,
  config: config.schedules,
  timer: createBullmqSlotTimer({ redisUrl: url, name: `${name}-slots`, logger }),
  logger,
});
const service = createAgentService({
  config,
  model,
  store,
  logger,
  queue: createBullmqWorkQueue({ redisUrl: url, name: `${name}-work`, logger }),
  observers: [schedules.observer],
  tools: [schedules.tool],
  showSlot: schedules.showSlot,
});
service.attach("slack", { tools: [], present: () => ({ sink: () => {}, finish: async () => undefined, fail: async () => {} }) });
// As app.ts does at start: the tokenizer's tables are built before the first run needs them.
await TokenCounter.prepare(config.model.name);
await service.start();
const started = performance.now();
const { schedules: armed } = await schedules.start((task, receipt) => service.submit(task, receipt));
process.stdout.write(`ready ${(performance.now() - started).toFixed(0)} ${armed}\n`);

process.once("SIGTERM", () => {
  void (async () => {
    await schedules.close();
    await service.close(2_000);
    await store.close();
    process.exit(0);
  })();
});
