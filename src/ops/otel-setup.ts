// The OTLP trace export, loaded only when OTEL_EXPORTER_OTLP_ENDPOINT is set: the SDK and the
// exporter are dynamic imports, so a process without it neither loads nor pays for them. The
// exporter reads the standard OTEL_EXPORTER_OTLP_* variables (endpoint, headers, timeout) itself.
import { trace, type Tracer } from "@opentelemetry/api";

export interface Tracing {
  readonly tracer: Tracer;
  /** Sends the spans still buffered; bounded by the exporter's own timeout. Never rejects. */
  shutdown(): Promise<void>;
}

export const TRACER_NAME = "guarded-agent-bot";

export async function startOtlpTracing(env: NodeJS.ProcessEnv): Promise<Tracing | undefined> {
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT) return undefined;
  // The SDK names the service from OTEL_SERVICE_NAME; without it spans would say "unknown_service:node".
  env.OTEL_SERVICE_NAME ??= TRACER_NAME;
  const [{ NodeTracerProvider, BatchSpanProcessor }, { OTLPTraceExporter }] = await Promise.all([
    import("@opentelemetry/sdk-trace-node"),
    import("@opentelemetry/exporter-trace-otlp-http"),
  ]);
  const provider = new NodeTracerProvider({ spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())] });
  provider.register();
  return {
    tracer: trace.getTracer(TRACER_NAME),
    shutdown: () => provider.shutdown().catch(() => undefined),
  };
}
