// GET /healthz (liveness), /readyz (readiness) and /metrics, as plain node:http handlers: served
// by the ops server on PORT, or by Slack's HTTP receiver where Slack already owns that port.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Health } from "./health.js";

export interface MetricsSource {
  readonly contentType: string;
  /** The Prometheus text exposition. */
  text(): Promise<string>;
}

export interface OpsRoute {
  readonly path: string;
  handler(request: IncomingMessage, response: ServerResponse): void;
}

export function createOpsRoutes(health: Health, metrics?: MetricsSource): readonly OpsRoute[] {
  const routes: OpsRoute[] = [
    { path: "/healthz", handler: (_request, response) => sendJson(response, 200, { status: "ok" }) },
    {
      path: "/readyz",
      handler: (_request, response) => {
        void health.readiness().then(
          (report) => sendJson(response, report.ready ? 200 : 503, { status: report.ready ? "ok" : "failing", checks: report.checks }),
          (error: unknown) =>
            sendJson(response, 500, { status: "failing", reason: error instanceof Error ? error.message : String(error) }),
        );
      },
    },
  ];
  if (metrics) {
    routes.push({
      path: "/metrics",
      handler: (_request, response) => {
        metrics.text().then(
          (text) => {
            response.writeHead(200, { "Content-Type": metrics.contentType });
            response.end(text);
          },
          (error: unknown) =>
            sendJson(response, 500, { status: "failing", reason: error instanceof Error ? error.message : String(error) }),
        );
      },
    });
  }
  return routes;
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "Content-Type": "application/json", "Cache-Control": "no-store" });
  response.end(JSON.stringify(body));
}
