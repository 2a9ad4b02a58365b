// The process's port as a bot process opens it for Slack's HTTP mode (app.ts): SLACK_EVENTS_ENDPOINT
// reserved on it, answering 503 until open() and after the surface unmounts. No ops routes: the
// tests and the Slack bench ask only the events endpoint.
import type { Logger } from "../../src/logger.js";
import { startOpsServer, type OpsServer } from "../../src/ops/ops-server.js";
import { SLACK_EVENTS_ENDPOINT } from "../../src/adapters/slack/events-endpoint.js";

export function startSlackEventsPort(logger?: Logger): Promise<OpsServer> {
  return startOpsServer(0, [], { host: "127.0.0.1", endpoints: [SLACK_EVENTS_ENDPOINT], ...(logger ? { logger } : {}) });
}

export const eventsUrlOf = (port: OpsServer): string => `http://127.0.0.1:${port.port}${SLACK_EVENTS_ENDPOINT.path}`;
