// The process's one HTTP port (PORT): GET of the ops routes, and every other request handed to
// the surface mounted on it (Slack's HTTP mode). The port opens before the chat libraries load,
// so a process is listening within its first second; until a surface is mounted (and after it
// is unmounted at shutdown) other requests get 503, which Slack retries.
import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { OpsRoute } from "./ops-routes.js";

const CLOSE_GRACE_MS = 1_000;

/** Where a surface that takes HTTP requests plugs in. */
export interface HttpMount {
  /** Every request that is not an ops route goes to `listener` from now on. */
  mount(listener: RequestListener): void;
  /** Stops handing requests to the surface: they get 503 until the port closes. */
  unmount(): void;
}

export interface OpsServer extends HttpMount {
  readonly port: number;
  /** Every request for `prefix` or a path under `prefix/` goes to `listener`, before the ops routes and the surface (the explorer's /admin). */
  mountPrefix(prefix: string, listener: RequestListener): void;
  /** Closes the port: requests being answered get up to a second, idle keep-alive connections are cut. Never rejects. */
  close(): Promise<void>;
}

function sendStatus(response: Parameters<RequestListener>[1], code: number, status: string, headers: Record<string, string> = {}): void {
  response.writeHead(code, { "Content-Type": "application/json", ...headers }).end(JSON.stringify({ status }));
}

/** Resolves once the port is listening; rejects when it can't be (e.g. EADDRINUSE). */
export function startOpsServer(port: number, routes: readonly OpsRoute[], host?: string): Promise<OpsServer> {
  const byPath = new Map(routes.map((route) => [route.path, route]));
  let mounted: RequestListener | undefined;
  let wasMounted = false;
  const prefixes = new Map<string, RequestListener>();
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? "/").split("?")[0]!;
    for (const [prefix, listener] of prefixes) if (path === prefix || path.startsWith(`${prefix}/`)) return listener(request, response);
    const route = byPath.get(path);
    if (!route) {
      if (mounted) mounted(request, response);
      else if (wasMounted) sendStatus(response, 503, "not_taking_events", { "Retry-After": "5" });
      else sendStatus(response, 404, "not_found");
      return;
    }
    if (request.method !== "GET" && request.method !== "HEAD") {
      sendStatus(response, 405, "method_not_allowed", { Allow: "GET, HEAD" });
      return;
    }
    route.handler(request, response);
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve({
        port: (server.address() as AddressInfo).port,
        mount(listener) {
          mounted = listener;
          wasMounted = true;
        },
        unmount() {
          mounted = undefined;
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
