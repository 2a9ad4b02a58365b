// The HTTP port of a process that has no other: Socket Mode, Discord only, worker processes.
// Only GET of the ops routes; everything else is 404 or 405.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { OpsRoute } from "./ops-routes.js";

const CLOSE_GRACE_MS = 1_000;

export interface OpsServer {
  readonly port: number;
  /** Closes the port: requests being answered get up to a second, idle keep-alive connections are cut. Never rejects. */
  close(): Promise<void>;
}

/** Resolves once the port is listening; rejects when it can't be (e.g. EADDRINUSE). */
export function startOpsServer(port: number, routes: readonly OpsRoute[], host?: string): Promise<OpsServer> {
  const byPath = new Map(routes.map((route) => [route.path, route]));
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? "/").split("?")[0]!;
    const route = byPath.get(path);
    if (!route) {
      response.writeHead(404, { "Content-Type": "application/json" }).end(JSON.stringify({ status: "not_found" }));
      return;
    }
    if (request.method !== "GET" && request.method !== "HEAD") {
      response.writeHead(405, { Allow: "GET, HEAD", "Content-Type": "application/json" }).end(JSON.stringify({ status: "method_not_allowed" }));
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
