// What app.ts chooses before the runner: the model client (the offline demo without an API key,
// else the OpenAI SDK, loaded only then), the work queue, and the schedule slots' counters on /metrics.
import type { Logger } from "./logger.js";
import { createDemoModel } from "./agent/models/model-demo.js";
import type { Model } from "./contracts/types.js";
import type { Config } from "./config.js";
import type { StoreLocation } from "./memory/keyv-store.js";
import type { WorkQueue } from "./runs/queue/work-queue.js";
import type { Metrics } from "./ops/metrics.js";
import type { SlotMetrics } from "./schedules/ports.js";
import type { ModelDescription } from "./adapters/console/console-text.js";

export type ChosenModel = {
  readonly kind: "demo" | "remote";
  readonly model: Model;
  readonly description: ModelDescription;
  /** A client for a channel's own model (the settings file), one per name. */
  readonly modelFor?: (name: string) => Model;
};

export async function chooseModel(config: Config, logger: Logger): Promise<ChosenModel> {
  const { apiKey, baseUrl, name, timeoutMs, streamIdleMs, maxRetries } = config.model;
  if (!apiKey) return { kind: "demo", model: createDemoModel(), description: { kind: "demo", unusedBaseUrl: baseUrl } };
  // Loaded only for a real model: the demo and the console start without the OpenAI SDK.
  const { createOpenAIModel } = await import("./agent/models/model-openai.js");
  const clients = new Map<string, Model>();
  const modelFor = (other: string): Model =>
    clients.get(other) ??
    clients.set(other, createOpenAIModel({ apiKey, baseUrl, model: other, timeoutMs, streamIdleMs, maxRetries, logger })).get(other)!;
  return { kind: "remote", model: modelFor(name), description: { kind: "remote", name, baseUrl }, modelFor };
}

/** The schedule slots' outcomes as Prometheus counters. */
export function slotMetricsOf(metrics: Metrics): SlotMetrics {
  return {
    slot: (outcome, count = 1) => metrics.scheduleSlots.inc({ outcome }, count),
    runEnded: (outcome) => metrics.scheduleRunsEnded.inc({ outcome }),
  };
}

/**
 * Several processes on one Redis share the work through BullMQ (loaded only then); SQLite and the
 * console keep it in this process. Undefined: the runner makes its own in-process queue.
 */
export async function chooseQueue(
  config: Config,
  location: StoreLocation,
  process: { readonly consoleMode: boolean; readonly measured: boolean },
  logger: Logger,
): Promise<WorkQueue | undefined> {
  if (location.kind === "redis" && !process.consoleMode) {
    const { createBullmqWorkQueue } = await import("./runs/queue/bullmq-work-queue.js");
    return createBullmqWorkQueue({ redisUrl: location.url, logger, consume: config.role !== "ingress" });
  }
  // Made here when measured, so /metrics can read its depth.
  return process.measured ? (await import("./runs/queue/local-work-queue.js")).createLocalWorkQueue(logger) : undefined;
}
