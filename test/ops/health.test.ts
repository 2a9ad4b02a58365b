import { chmod, rm } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/logger.js";
import { openStore } from "../../src/memory/keyv-store.js";
import type { KeyValueStore } from "../../src/memory/types.js";
import { createHealth, type Health } from "../../src/ops/health.js";
import { createOpsRoutes } from "../../src/ops/ops-routes.js";
import { startOpsServer, type OpsServer } from "../../src/ops/ops-server.js";
import { createStoreCheck } from "../../src/ops/store-check.js";
import { mapStore } from "../support/map-store.js";
import { temporaryFolder } from "../support/temporary-folder.js";
import { startRedisServer } from "../support/redis-server.js";
import { describeWithRedis } from "../support/redis-suite.js";

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A process whose start is complete (its surfaces attached, its queue started), unless `started` is false. */
async function serve(health: Health, started = true): Promise<OpsServer> {
  if (started) health.started();
  const server = await startOpsServer(0, createOpsRoutes(health, { contentType: "text/plain", text: async () => "up 1\n" }), {
    host: "127.0.0.1",
  });
  cleanups.push(() => server.close());
  return server;
}

// biome-ignore lint/suspicious/noExplicitAny: the answers' shapes are what the tests check.
async function get(server: OpsServer, path: string): Promise<{ status: number; body: any }> {
  const response = await fetch(`http://127.0.0.1:${server.port}${path}`);
  const text = await response.text();
  return { status: response.status, body: response.headers.get("content-type")?.includes("json") ? JSON.parse(text) : text };
}

/** Asks /readyz the way a load balancer does until it answers `status`; returns how long that took. */
async function readyzTurns(server: OpsServer, status: number, withinMs: number): Promise<number> {
  const started = Date.now();
  for (;;) {
    const answer = await get(server, "/readyz");
    if (answer.status === status) return Date.now() - started;
    if (Date.now() - started > withinMs)
      throw new Error(`/readyz still answers ${answer.status} after ${withinMs} ms: ${JSON.stringify(answer.body)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function sqliteStore(): Promise<{ store: KeyValueStore; path: string }> {
  const folder = await temporaryFolder();
  const path = join(folder.path, "bot.sqlite");
  const store = await openStore(`sqlite://${path}`, silentLogger);
  cleanups.push(
    () => folder.remove(),
    () => store.close(),
  );
  return { store, path };
}

describe("health and readiness", () => {
  it("answers liveness and readiness as JSON with each check", async () => {
    const { store, path } = await sqliteStore();
    const health = createHealth({ checkStore: createStoreCheck(store, { sqlitePath: path }) });
    health.connection("slack", "up");
    const server = await serve(health);
    expect(await get(server, "/healthz")).toEqual({ status: 200, body: { status: "ok" } });
    expect(await get(server, "/readyz")).toEqual({
      status: 200,
      body: {
        status: "ok",
        checks: { shutdown: { status: "ok" }, started: { status: "ok" }, store: { status: "ok" }, slack: { status: "ok" } },
      },
    });
    expect(await get(server, "/metrics")).toEqual({ status: 200, body: "up 1\n" });
    expect((await get(server, "/nope")).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${server.port}/readyz`, { method: "POST" })).status).toBe(405);
  });

  it("is not ready until the start is complete (every surface attached, the queue started)", async () => {
    const { store } = await sqliteStore();
    const health = createHealth({ checkStore: createStoreCheck(store) });
    health.connection("slack", "up");
    const server = await serve(health, false);
    const answer = await get(server, "/readyz");
    expect(answer).toMatchObject({
      status: 503,
      body: { checks: { started: { status: "failing", reason: expect.stringContaining("starting") } } },
    });
    health.started();
    expect((await get(server, "/readyz")).status).toBe(200);
  });

  it("is not ready from the first moment of a shutdown, while liveness still answers", async () => {
    const { store } = await sqliteStore();
    const health = createHealth({ checkStore: createStoreCheck(store) });
    const server = await serve(health);
    health.shuttingDown();
    const answer = await get(server, "/readyz");
    expect(answer.status).toBe(503);
    expect(answer.body.checks.shutdown).toEqual({ status: "failing", reason: "shutting down" });
    expect((await get(server, "/healthz")).status).toBe(200);
  });

  it("is not ready while a surface is connecting or disconnected, and is again once it is up", async () => {
    const { store } = await sqliteStore();
    const health = createHealth({ checkStore: createStoreCheck(store) });
    const server = await serve(health);
    health.connection("discord", "starting");
    expect((await get(server, "/readyz")).body.checks.discord).toEqual({ status: "failing", reason: "connecting" });
    health.connection("discord", "up");
    expect((await get(server, "/readyz")).status).toBe(200);
    health.connection("discord", "down", "gateway closed with 4004");
    const answer = await get(server, "/readyz");
    expect(answer).toMatchObject({ status: 503, body: { checks: { discord: { status: "failing", reason: "gateway closed with 4004" } } } });
  });

  it("flips to 503 within 2 s of the SQLite file turning read-only, and back when it is writable again", async () => {
    const { store, path } = await sqliteStore();
    const server = await serve(createHealth({ checkStore: createStoreCheck(store, { sqlitePath: path }) }));
    expect((await get(server, "/readyz")).status).toBe(200);
    await chmod(path, 0o444);
    expect(await readyzTurns(server, 503, 2_000)).toBeLessThanOrEqual(2_000);
    expect((await get(server, "/readyz")).body.checks.store).toEqual({ status: "failing", reason: `${path} is read-only` });
    await chmod(path, 0o644);
    await readyzTurns(server, 200, 2_000);
  });

  it("is not ready when the SQLite file was deleted under the running process", async () => {
    const { store, path } = await sqliteStore();
    const server = await serve(createHealth({ checkStore: createStoreCheck(store, { sqlitePath: path }) }));
    await rm(path);
    expect((await get(server, "/readyz")).body.checks.store).toEqual({ status: "failing", reason: `${path} is gone` });
  });

  it("counts a store that does not answer within the timeout as failing", async () => {
    const hanging: KeyValueStore = { ...mapStore(), get: () => new Promise(() => {}), set: () => new Promise(() => {}) };
    const check = createStoreCheck(hanging, { timeoutMs: 50 });
    const [first, second] = await Promise.all([check(), check()]);
    expect(first).toEqual({ status: "failing", reason: "no answer within 50 ms" });
    expect(second).toBe(first);
  });
});

describeWithRedis("readiness on Redis", () => {
  it("flips to 503 within 2 s of Redis being killed, and back once it returns", async () => {
    let redis = await startRedisServer();
    const port = redis.port;
    const store = await openStore(redis.url, silentLogger);
    cleanups.push(
      () => redis.stop(),
      () => store.close(),
    );
    const server = await serve(createHealth({ checkStore: createStoreCheck(store) }));
    expect((await get(server, "/readyz")).status).toBe(200);
    await redis.stop();
    expect(await readyzTurns(server, 503, 2_000)).toBeLessThanOrEqual(2_000);
    redis = await startRedisServer(port);
    await readyzTurns(server, 200, 5_000);
  });
});
