// Everything an operator watches, put together for one process: health and readiness, the
// metrics, the traces (when OTEL_EXPORTER_OTLP_ENDPOINT is set), and the port that serves them.
// app.ts builds it for every process but the console and hands its parts to the runner and
// the surfaces.
import type { Logger } from "../logger.js";
import type { Model } from "../contracts/types.js";
import type { Config } from "../config.js";
import { parseStoreUrl } from "../memory/keyv-store.js";
import type { KeyValueStore } from "../memory/types.js";
import type { RunObserver } from "../runs/worker/run-observer.js";
import { createHealth, type Health } from "./health.js";
import { instrumentModel, instrumentService, instrumentStore } from "./instrument.js";
import { createMetrics, type Metrics } from "./metrics.js";
import { metricsObserver } from "./metrics-observer.js";
import { createOpsRoutes } from "./ops-routes.js";
import { startOpsServer, type OpsServer, type SurfaceEndpoint } from "./ops-server.js";
import { startOtlpTracing, TRACER_NAME, type Tracing } from "./otel-setup.js";
import { createStoreCheck } from "./store-check.js";
import { tracingObserver } from "./tracing.js";

export interface Ops {
  readonly health: Health;
  readonly metrics: Metrics;
  /** For the runner: every run's events go to the metrics and, when enabled, the traces. */
  readonly observers: readonly RunObserver[];
  instrumentModel(model: Model): Model;
  instrumentStore<S extends KeyValueStore>(store: S): S;
  /** Counts redeliveries the runner turned away (events_deduplicated_total). */
  instrumentService<S extends Parameters<typeof instrumentService>[0]>(service: S): S;
  /**
   * Opens PORT (its port, and where Slack's HTTP mode mounts on the `endpoints` reserved now: they
   * answer 503 until open()), and where the explorer mounts /admin. Rejects when the port can't be opened.
   */
  listen(port: number, endpoints?: readonly SurfaceEndpoint[]): Promise<Omit<OpsServer, "close" | "open">>;
  /** Every surface is attached and the queue started: surface endpoints are served, and readiness can pass. */
  open(): void;
  /** Closes the port (readiness answers 503 until then) and sends the traces still buffered. Never rejects. */
  close(): Promise<void>;
}

export async function startOps(config: Config, store: KeyValueStore, env: NodeJS.ProcessEnv, logger: Logger): Promise<Ops> {
  const metrics = createMetrics();
  const location = parseStoreUrl(config.storeUrl);
  const health = createHealth({ checkStore: createStoreCheck(store, location.kind === "sqlite" ? { sqlitePath: location.path } : {}) });
  const observers: RunObserver[] = [metricsObserver(metrics)];
  let tracing: Tracing | undefined;
  if (config.otlpEndpoint) {
    tracing = await startOtlpTracing(env);
    if (tracing) {
      observers.push(tracingObserver(tracing.tracer, { agentName: TRACER_NAME, modelName: config.model.name }));
      logger.info({ endpoint: config.otlpEndpoint }, "sending traces over OTLP");
    }
  }
  const routes = createOpsRoutes(health, metrics);
  let server: OpsServer | undefined;
  return {
    health,
    metrics,
    observers,
    instrumentModel: (model) => instrumentModel(model, metrics),
    instrumentStore: (inner) => instrumentStore(inner, metrics),
    instrumentService: (service) => instrumentService(service, metrics),
    async listen(port, endpoints = []) {
      server = await startOpsServer(port, routes, { endpoints, logger });
      logger.info({ port: server.port }, "health, readiness and metrics are served");
      return server;
    },
    open() {
      health.started();
      server?.open();
    },
    async close() {
      health.shuttingDown();
      await server?.close();
      await tracing?.shutdown();
    },
  };
}
