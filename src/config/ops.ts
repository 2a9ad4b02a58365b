// Operating the bot: the port for health, readiness and metrics, traces and logs.
import { area } from "./area.js";
import { httpUrl, oneOf, wholeNumber } from "./values.js";
import { variable } from "./variable.js";

/** Health, readiness and metrics (and Slack's HTTP mode) listen here in every process but the console. */
export const PORT = variable("PORT", wholeNumber(0, 65_535), {
  default: 3000,
  meaning:
    "`/healthz`, `/readyz` and `/metrics` in every process but the console (see [Operating it](operations.md#operating-it)); also Slack HTTP mode's events and the `/oauth` pages of [MCP servers behind OAuth](mcp.md#mcp-servers-behind-oauth), which the console serves on `127.0.0.1:PORT`",
});

export const opsArea = area({
  title: "Operating",
  about: "What every process but the console serves, and where its traces and logs go.",
  variables: {
    port: PORT,
    /** Where OpenTelemetry traces go (OTLP/HTTP); unset: no tracing SDK is loaded. */
    otlpEndpoint: variable("OTEL_EXPORTER_OTLP_ENDPOINT", httpUrl(), {
      meaning: "send OpenTelemetry traces there (OTLP/HTTP); unset: no tracing code is loaded",
    }),
    logLevel: variable("LOG_LEVEL", oneOf(["fatal", "error", "warn", "info", "debug", "trace", "silent"]), {
      default: "info",
      meaning: "how much is logged (on stderr); console mode logs only errors unless this is set",
    }),
    // Read again by the logger (logFormatFrom), which decides the default by whether stderr is a terminal.
    logFormat: variable("LOG_FORMAT", oneOf(["pretty", "json"]), {
      shownDefault: "`pretty` on a terminal, else `json`",
      meaning: "how log lines look: one readable line each, or JSON for a log collector",
    }),
  },
});
