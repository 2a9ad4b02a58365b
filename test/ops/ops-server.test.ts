// The port's routing on its own: a surface endpoint reserved when the port opens answers 503
// until the process is open and the surface mounted (and again once unmounted), takes only its
// methods, and a handler that throws gets a 500 while the server goes on.
import { afterEach, describe, expect, it } from "vitest";
import type { OpsRoute } from "../../src/ops/ops-routes.js";
import { startOpsServer, type OpsServer } from "../../src/ops/ops-server.js";
import { capturingLogger } from "../support/capturing-logger.js";

const servers: OpsServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(): Promise<{ server: OpsServer; lines: ReturnType<typeof capturingLogger>["lines"] }> {
  const { logger, lines } = capturingLogger();
  const routes: OpsRoute[] = [
    { path: "/healthz", handler: (_request, response) => void response.end("ok") },
    {
      path: "/broken",
      handler: () => {
        throw new Error("a bug in a handler");
      },
    },
  ];
  const server = await startOpsServer(0, routes, { host: "127.0.0.1", logger, endpoints: [{ path: "/events", methods: ["POST"] }] });
  servers.push(server);
  return { server, lines };
}

const request = async (server: OpsServer, path: string, method = "GET") => {
  const response = await fetch(`http://127.0.0.1:${server.port}${path}`, { method });
  return { status: response.status, allow: response.headers.get("allow"), retryAfter: response.headers.get("retry-after") };
};

describe("the ops port", () => {
  it("a surface endpoint answers 503 until the process is open and the surface mounted, then reaches it, and 503 once unmounted", async () => {
    const { server } = await serve();
    expect(await request(server, "/events", "POST")).toMatchObject({ status: 503, retryAfter: "5" });
    server.mount((_request, response) => response.writeHead(200).end("taken"));
    expect((await request(server, "/events", "POST")).status).toBe(503);
    server.open();
    expect((await request(server, "/events", "POST")).status).toBe(200);
    server.unmount();
    expect((await request(server, "/events", "POST")).status).toBe(503);
  });

  it("unknown paths get 404 and other methods 405 with Allow, also before the process is open", async () => {
    const { server } = await serve();
    expect((await request(server, "/nope", "POST")).status).toBe(404);
    expect(await request(server, "/events", "GET")).toMatchObject({ status: 405, allow: "POST" });
    expect(await request(server, "/healthz", "DELETE")).toMatchObject({ status: 405, allow: "GET, HEAD" });
  });

  it("a handler that throws gets a 500 with a log line naming the request, and the server goes on", async () => {
    const { server, lines } = await serve();
    server.mount(() => {
      throw new Error("a bug in a surface");
    });
    server.open();
    expect((await request(server, "/broken")).status).toBe(500);
    expect((await request(server, "/events", "POST")).status).toBe(500);
    expect((await request(server, "/healthz")).status).toBe(200);
    expect(lines.filter((line) => line.msg.includes("threw")).map((line) => [line.method, line.path])).toEqual([
      ["GET", "/broken"],
      ["POST", "/events"],
    ]);
  });
});
