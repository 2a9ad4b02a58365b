// The run explorer for one process: off without ADMIN_TOKEN (every /admin path then answers 404,
// so it never reaches the surface mounted on the port); at /admin on the ops port (PORT) with it;
// on a listener of its own at ADMIN_HOST:ADMIN_PORT when that is set (the ops port's /admin then
// 404s); in console mode on PORT at 127.0.0.1, since the console opens no other port.
import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "../../logger.js";
import type { Config } from "../../config.js";
import { type PriceTable, priceTable } from "../../cost/prices.js";
import { endpointName } from "../../contracts/model-endpoint.js";
import type { Governance } from "../../governance/governance.js";
import { createLongTermMemory } from "../../memory/long-term-memory.js";
import type { RunRecordStore } from "../../memory/run-records/record-store.js";
import { parseStoreUrl } from "../../memory/keyv-store.js";
import type { KeyValueStore } from "../../memory/types.js";
import type { AgentService } from "../../runs/api/agent-service.js";
import type { OpsServer } from "../ops-server.js";
import type { ExplorerDeps, SettingsView } from "./explorer-deps.js";
import { createExplorerHandler } from "./explorer-handler.js";
import { send, text } from "./http-io.js";

export interface ExplorerOptions {
  readonly config: Config;
  readonly store: KeyValueStore;
  readonly records: RunRecordStore;
  readonly service: Pick<AgentService, "tools" | "feedback">;
  readonly governance: Governance;
  readonly logger: Logger;
  /** The ops port, when this process has one (every process but the console). */
  readonly opsPort?: Pick<OpsServer, "mountPrefix" | "port">;
  /** The surfaces this process serves, for the Tools page. */
  readonly surfaces: readonly string[];
  /** People's connections to MCP servers behind OAuth, for the Tools page. */
  readonly connections?: ExplorerDeps["connections"];
  /** The /oauth pages, served on the explorer's own port when it takes the console's PORT. */
  readonly oauth?: RequestListener;
}

export interface RunningExplorer {
  /** The port of its own listener (ADMIN_PORT, or PORT in console mode); undefined when it is on the ops port or off. */
  readonly port?: number;
  /** Where a browser opens it (the real port), when it is on. */
  readonly url?: string;
  close(): Promise<void>;
}

const notFound: RequestListener = (request, response) => {
  request.resume();
  send(response, text(404, "Not found."), request.method === "HEAD");
};

/** Rejects when its own listener can't be opened (the caller's start then stops with one line). */
export async function startExplorer(options: ExplorerOptions): Promise<RunningExplorer> {
  const { config, opsPort } = options;
  const admin = config.admin;
  if (!admin) {
    opsPort?.mountPrefix("/admin", notFound);
    return { close: async () => undefined };
  }
  const handler = createExplorerHandler(explorerDeps(options, admin.token));
  if (opsPort && admin.port === undefined) {
    opsPort.mountPrefix("/admin", handler);
    // A browser on the explorer asks for /favicon.ico on any answer that is not a page: it must not reach the surface.
    opsPort.mountPrefix("/favicon.ico", notFound);
    const url = config.publicUrl === undefined ? `http://localhost:${opsPort.port}/admin` : `${config.publicUrl.replace(/\/+$/, "")}/admin`;
    options.logger.info({ url, port: opsPort.port }, `the run explorer is served at ${url}`);
    // On Slack's HTTP mode the ops port is the one Slack's events come in on: public by design, and the explorer with it.
    if (config.slack?.mode.kind === "http")
      options.logger.warn(
        { port: opsPort.port },
        `the run explorer shares PORT ${opsPort.port} with Slack's public events endpoint, so it answers wherever Slack's events reach; set ADMIN_PORT to serve it on a listener of its own (on ADMIN_HOST, 127.0.0.1 by default)`,
      );
    return { url, close: async () => undefined };
  }
  opsPort?.mountPrefix("/admin", notFound);
  const host = admin.port === undefined ? "127.0.0.1" : admin.host;
  const { oauth } = options;
  const served: RequestListener = oauth
    ? (request, response) => ((request.url ?? "").startsWith("/oauth/") ? oauth(request, response) : handler(request, response))
    : handler;
  const server = await listen(served, admin.port ?? config.port, host);
  const port = (server.address() as AddressInfo).port;
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${port}/admin`;
  options.logger.info({ host, port, url }, `the run explorer is served at ${url}`);
  return {
    port,
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function listen(handler: RequestListener, port: number, host: string): Promise<Server> {
  const server = createServer({ requestTimeout: 30_000, headersTimeout: 10_000 }, handler);
  // A client that sends garbage, stalls or drops gets its socket closed; the process goes on.
  server.on("clientError", (_error, socket) => {
    if (socket.writable) socket.end("HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n");
    else socket.destroy();
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve(server);
    });
  });
}

function explorerDeps(options: ExplorerOptions, token: string): ExplorerDeps {
  const { config, store, records, service, governance, logger } = options;
  // The settings file's endpoint prices as the process read them at start, like its model clients.
  const prices = priceTable(config.prices, governance.source.current().models);
  return {
    token,
    trustedProxies: config.trustedProxies,
    ...(config.publicUrl === undefined ? {} : { publicUrl: config.publicUrl }),
    records,
    store,
    prices,
    feedback: service.feedback,
    audit: governance.runPolicy.audit,
    memory: createLongTermMemory(store, { maxFacts: config.memory.maxFacts, logger }),
    tools: () =>
      options.surfaces.map((surface) => ({ surface, tools: service.tools.list(surface as Parameters<typeof service.tools.list>[0]) })),
    settings: () => settingsView(config, governance, prices),
    ...(options.connections ? { connections: options.connections } : {}),
    logger,
  };
}

function settingsView(config: Config, governance: Governance, table: PriceTable): SettingsView {
  const location = parseStoreUrl(config.storeUrl);
  const { guards, memory } = config;
  const prices = [...table].map(([model, price]) => `${model} ${price.input}/${price.cached}/${price.output}`).join(", ");
  const settings: Array<readonly [string, string]> = [
    ["OPENAI_MODEL", config.model.apiKey ? config.model.name : `${config.model.name} (the offline demo model answers)`],
    ["OPENAI_BASE_URL", config.model.baseUrl ? withoutCredentials(config.model.baseUrl) : "OpenAI's own"],
    ["MODEL_FALLBACKS", config.model.fallbacks.map((endpoint) => endpointName(endpoint.model, endpoint.baseUrl)).join(", ") || "(none)"],
    ["AGENT_MAX_STEPS", String(guards.maxSteps)],
    ["AGENT_MAX_CONSECUTIVE_ERRORS", String(guards.maxConsecutiveErrors)],
    ["AGENT_OSCILLATION_WINDOW", String(guards.oscillationWindow)],
    ["AGENT_CONTEXT_TOKENS", guards.contextTokens === undefined ? "the model's own window" : String(guards.contextTokens)],
    ["AGENT_RESERVED_OUTPUT_TOKENS", String(guards.reservedOutputTokens)],
    ["AGENT_OBSERVATION_TOKENS", String(guards.observationTokens)],
    ["AGENT_RUN_TIMEOUT_MS", String(guards.runTimeoutMs)],
    ["AGENT_TOOL_TIMEOUT_MS", String(guards.toolTimeoutMs)],
    [
      "STORE_URL",
      location.kind === "sqlite" ? `SQLite file ${location.path}` : `Redis at ${location.host}:${location.port}/${location.database}`,
    ],
    ["BOT_ROLE", config.role],
    ["MAX_CONCURRENT_RUNS", String(config.maxConcurrentRuns)],
    ["MEMORY_HISTORY_TURNS / _TOKENS", `${memory.historyTurns} / ${memory.historyTokens}`],
    ["MEMORY_MAX_FACTS / RECALL_FACTS / EXTRACT_FACTS", `${memory.maxFacts} / ${memory.recallFacts} / ${memory.extractFacts}`],
    [
      "TOOL_POLICY",
      config.toolPolicy.map((rule) => `${rule.pattern}=${rule.policy}`).join(", ") || "(none: writes need approval, reads run)",
    ],
    ["APPROVAL_TIMEOUT_MS", String(config.approvalTimeoutMs)],
    ["RUN_RECORD_CONTENT / MAX_BYTES", `${config.records.content} / ${config.records.maxBytes}`],
    ["RUN_RETENTION_DAYS / MAX", `${config.records.retentionDays} / ${config.records.retentionMax}`],
    ["Prices in force ($ per million: input/cached/output)", prices],
  ];
  const { path } = governance.source;
  return { settings, ...(path ? { file: { path, content: governance.source.current() } } : {}) };
}

function withoutCredentials(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = "";
    parsed.password = "";
    return parsed.toString();
  } catch {
    return "(not a URL)";
  }
}
