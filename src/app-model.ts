// What app.ts chooses before the runner: the model client (the offline demo without an API key,
// else the OpenAI SDK, loaded only then), and the schedule slots' counters on /metrics.
import type { Logger } from "pino";
import { createDemoModel } from "./agent/models/model-demo.js";
import type { Model } from "./agent/types.js";
import type { Config } from "./config.js";
import type { Metrics } from "./ops/metrics.js";
import type { SlotMetrics } from "./runs/schedules/ports.js";
import type { ModelDescription } from "./surfaces/console/console-text.js";

export type ChosenModel = {
  readonly kind: "demo" | "remote";
  readonly model: Model;
  readonly description: ModelDescription;
  /** A client for a channel's own model (the settings file), one per name. */
  readonly modelFor?: (name: string) => Model;
};

export async function chooseModel(config: Config, logger: Logger): Promise<ChosenModel> {
  const { apiKey, baseUrl, name, timeoutMs, maxRetries } = config.model;
  if (!apiKey) return { kind: "demo", model: createDemoModel(), description: { kind: "demo", unusedBaseUrl: baseUrl } };
  // Loaded only for a real model: the demo and the console start without the OpenAI SDK.
  const { createOpenAIModel } = await import("./agent/models/model-openai.js");
  const clients = new Map<string, Model>();
  const modelFor = (other: string): Model =>
    clients.get(other) ??
    clients.set(other, createOpenAIModel({ apiKey, baseUrl, model: other, timeoutMs, maxRetries, logger })).get(other)!;
  return { kind: "remote", model: modelFor(name), description: { kind: "remote", name, baseUrl }, modelFor };
}

/** The schedule slots' outcomes as Prometheus counters. */
export function slotMetricsOf(metrics: Metrics): SlotMetrics {
  return {
    slot: (outcome, count = 1) => metrics.scheduleSlots.inc({ outcome }, count),
    runEnded: (outcome) => metrics.scheduleRunsEnded.inc({ outcome }),
  };
}
