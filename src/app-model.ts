// What app.ts chooses before the runner: the model client (the offline demo without an API key,
// else the OpenAI SDK, loaded only then, over several endpoints behind their breakers when
// MODEL_FALLBACKS lists some), the work queue, and the schedule slots' counters on /metrics.
import type { Logger } from "./logger.js";
import { createDemoModel } from "./agent/models/model-demo.js";
import type { EndpointBreakers } from "./agent/models/endpoint-breakers.js";
import { contextWindowOf } from "./agent/loop/loop-deps.js";
import type { Model } from "./contracts/types.js";
import type { Config } from "./config.js";
import type { StoreLocation } from "./memory/keyv-store.js";
import type { WorkQueue } from "./runs/queue/work-queue.js";
import type { Metrics } from "./ops/metrics.js";
import type { SlotMetrics } from "./schedules/ports.js";
import type { ModelDescription } from "./adapters/console/console-text.js";
import { type EndpointModels, type EndpointSpec, fallbackEndpoints, primaryEndpoint, unusedEntries } from "./app-endpoints.js";
import { defaultContextWindow } from "./tokens/token-counter.js";

export type ChosenModel =
  | {
      readonly kind: "demo" | "remote";
      readonly model: Model;
      readonly description: ModelDescription;
      /** A client for a channel's own model (the settings file), one per name. */
      readonly modelFor?: (name: string) => Model;
      /** The endpoints' circuit breakers, shared by every client of the process; absent without MODEL_FALLBACKS. */
      readonly breakers?: EndpointBreakers;
    }
  /** `problem`: a settings line (the file's name goes before it). */
  | { readonly kind: "failed"; readonly problem: string };

export interface ModelSources {
  /** The settings file's `models` section, as it is at start. */
  readonly models: EndpointModels;
  /** Where an endpoint's own key variable is read. */
  readonly env: Readonly<Record<string, string | undefined>>;
}

export async function chooseModel(config: Config, logger: Logger, sources: ModelSources): Promise<ChosenModel> {
  const { apiKey, baseUrl, name, timeoutMs, streamIdleMs, maxRetries, fallbacks } = config.model;
  if (!apiKey) return { kind: "demo", model: createDemoModel(), description: { kind: "demo", unusedBaseUrl: baseUrl } };
  // Loaded only for a real model: the demo and the console start without the OpenAI SDK.
  const { createOpenAIModel } = await import("./agent/models/model-openai.js");
  const description: ModelDescription = { kind: "remote", name, baseUrl };
  const clients = new Map<string, Model>();
  const once = (key: string, make: () => Model): Model => clients.get(key) ?? clients.set(key, make()).get(key)!;
  if (fallbacks.length === 0) {
    const modelFor = (other: string): Model =>
      once(other, () => createOpenAIModel({ apiKey, baseUrl, model: other, timeoutMs, streamIdleMs, maxRetries, logger }));
    return { kind: "remote", model: modelFor(name), description, modelFor };
  }
  const fallbackList = fallbackEndpoints(config, sources.models, sources.env);
  if (fallbackList.kind === "failed") return fallbackList;
  for (const key of unusedEntries(sources.models, fallbackList.endpoints, primaryEndpoint(config, name, 0)))
    logger.warn(
      { notice: true },
      `the settings file's models entry "${key}" names no endpoint of OPENAI_BASE_URL or MODEL_FALLBACKS; it is not used`,
    );
  const [{ createEndpointBreakers }, { createFailoverModel }] = await Promise.all([
    import("./agent/models/endpoint-breakers.js"),
    import("./agent/models/failover-model.js"),
  ]);
  const breakers = createEndpointBreakers({ failuresToOpen: config.model.breakerFailures, coolDownMs: config.model.breakerCoolDownMs });
  // Each endpoint's client tries once: the failover spends OPENAI_MAX_RETRIES across the endpoints.
  const client = (endpoint: EndpointSpec) => ({
    name: endpoint.name,
    contextWindow: endpoint.contextWindow,
    model: once(endpoint.name, () =>
      createOpenAIModel({
        apiKey: endpoint.apiKey,
        baseUrl: endpoint.baseUrl,
        model: endpoint.model,
        timeoutMs,
        streamIdleMs,
        maxRetries: 0,
        logger,
      }),
    ),
  });
  const failovers = new Map<string, Model>();
  /** OPENAI_MODEL at the loop's window; a channel's own model at the model table's, as its loop has (loop-setups.ts). */
  const modelFor = (model: string): Model => {
    const found = failovers.get(model);
    if (found) return found;
    const first = primaryEndpoint(config, model, model === name ? contextWindowOf(config.guards, name) : defaultContextWindow(model));
    const rest = fallbackList.endpoints.filter((endpoint) => endpoint.name !== first.name);
    const made = createFailoverModel({ endpoints: [client(first), ...rest.map(client)], breakers, maxRetries, logger });
    failovers.set(model, made);
    return made;
  };
  return { kind: "remote", model: modelFor(name), description, modelFor, breakers };
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
