// The process's one HTTP port (PORT): GET of the ops routes, and the endpoints a surface serves
// on it (Slack's HTTP mode), reserved when the port opens. The port opens before the chat
// libraries load, so a process is listening within its first second; until the process is open
// for work (its surfaces attached, its queue started) and after a surface is unmounted at
// shutdown, a surface endpoint answers 503, which Slack retries. Whatever a client sends, the
// server answers it (404 unknown path, 405 wrong method, 413 a body an ops route or a surface endpoint
// does not take, 500 a handler that threw) and goes on: no request can end the process.
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "../logger.js";
import type { OpsRoute } from "./ops-routes.js";

const CLOSE_GRACE_MS = 1_000;
/** A client that has not sent its whole head (or its whole request) by then is cut off, so slow clients can't hold the port. */
const HEADERS_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 15_000;
/** The ops routes take no body; a client that declares a larger one is refused without waiting for it. */
const OPS_BODY_LIMIT_BYTES = 16 * 1024;
const OPS_METHODS = ["GET", "HEAD"];

/** A path a surface serves on the port, and the methods it takes there. */
export interface SurfaceEndpoint {
  readonly path: string;
  readonly methods: readonly string[];
  /** A request that declares a larger body is refused with 413 before it reaches the surface (which enforces it on what it reads). */
  readonly maxBodyBytes?: number;
}

/** Where a surface that takes HTTP requests plugs in. */
export interface HttpMount {
  /** Requests to the surface's endpoints go to `listener` from now on (once the process is open for work). */
  mount(listener: RequestListener): void;
  /** Stops handing requests to the surface: they get 503 until the port closes. */
  unmount(): void;
}

export interface OpsServer extends HttpMount {
  readonly port: number;
  /** The process takes work from now on: surface endpoints reach their listener. Until then they answer 503. */
  open(): void;
  /** Every request for `prefix` or a path under `prefix/` goes to `listener`, before the ops routes and the surface (the explorer's /admin). */
  mountPrefix(prefix: string, listener: RequestListener): void;
  /** Closes the port: requests being answered get up to a second, idle keep-alive connections are cut. Never rejects. */
  close(): Promise<void>;
}

export interface OpsServerOptions {
  /** Reserved now, served once a surface is mounted and the process is open. */
  readonly endpoints?: readonly SurfaceEndpoint[];
  readonly host?: string;
  /** Where a handler that threw is reported. */
  readonly logger?: Logger;
}

function sendStatus(response: ServerResponse, code: number, status: string, headers: Record<string, string> = {}): void {
  response.writeHead(code, { "Content-Type": "application/json", ...headers }).end(JSON.stringify({ status }));
}

/** The path of a request target; an absolute-form or malformed target is a path nobody serves. */
function pathOf(request: IncomingMessage): string {
  return (request.url ?? "/").split("?")[0]!;
}

function declaredBodyBytes(request: IncomingMessage): number {
  const length = Number(request.headers["content-length"] ?? 0);
  return Number.isFinite(length) ? length : Number.POSITIVE_INFINITY;
}

/** Resolves once the port is listening; rejects when it can't be (e.g. EADDRINUSE). */
export function startOpsServer(port: number, routes: readonly OpsRoute[], options: OpsServerOptions = {}): Promise<OpsServer> {
  const byPath = new Map(routes.map((route) => [route.path, route]));
  const endpoints = new Map((options.endpoints ?? []).map((endpoint) => [endpoint.path, endpoint]));
  let mounted: RequestListener | undefined;
  let open = false;
  const prefixes = new Map<string, RequestListener>();

  /** Exactly one answer per request: the ops route, the mounted surface, or a status saying why not. */
  function route(request: IncomingMessage, response: ServerResponse): void {
    const path = pathOf(request);
    for (const [prefix, listener] of prefixes) {
      if (path !== prefix && !path.startsWith(`${prefix}/`)) continue;
      listener(request, response);
      return;
    }
    const method = request.method ?? "";
    const opsRoute = byPath.get(path);
    const endpoint = endpoints.get(path);
    const allowed = opsRoute ? OPS_METHODS : endpoint?.methods;
    if (!allowed) sendStatus(response, 404, "not_found");
    else if (!allowed.includes(method)) sendStatus(response, 405, "method_not_allowed", { Allow: allowed.join(", ") });
    // Node reads and drops the rest of the body (bounded by the request timeout); closing at once would reset the connection before the client reads the 413.
    else if (declaredBodyBytes(request) > (opsRoute ? OPS_BODY_LIMIT_BYTES : (endpoint?.maxBodyBytes ?? Number.POSITIVE_INFINITY)))
      sendStatus(response, 413, "too_large");
    else if (opsRoute) opsRoute.handler(request, response);
    else if (open && mounted) mounted(request, response);
    else sendStatus(response, 503, "not_taking_events", { "Retry-After": "5" });
  }

  const server: Server = createServer({ headersTimeout: HEADERS_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS }, (request, response) => {
    try {
      route(request, response);
    } catch (error) {
      options.logger?.error({ err: error, method: request.method, path: pathOf(request) }, "an HTTP handler threw; answered 500");
      if (!response.headersSent) sendStatus(response, 500, "internal_error");
      else response.destroy();
    }
  });
  // No tunnels here: Node would otherwise drop the connection without a word.
  server.on("connect", (_request, socket) => {
    socket.on("error", () => {});
    socket.end("HTTP/1.1 405 Method Not Allowed\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, options.host, () => {
      server.off("error", reject);
      server.on("error", (error) => options.logger?.warn({ err: error }, "the HTTP port reported an error"));
      resolve({
        port: (server.address() as AddressInfo).port,
        mount(listener) {
          mounted = listener;
        },
        unmount() {
          mounted = undefined;
        },
        open() {
          open = true;
        },
        mountPrefix(prefix, listener) {
          prefixes.set(prefix, listener);
        },
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeIdleConnections();
            setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS).unref();
          }),
      });
    });
  });
}
