import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { StoreUnavailableError, StoreUrlError } from "../../src/errors.js";
import { silentLogger } from "../../src/logger.js";
import { openStore, parseStoreUrl } from "../../src/memory/keyv-store.js";
import { startRedisServer, type RedisServer } from "../support/redis-server.js";
import { describeWithRedis } from "../support/redis-suite.js";
import { capturingLogger } from "../support/capturing-logger.js";
import { temporaryFolder } from "../support/temporary-folder.js";
import { until } from "../support/until.js";
import { storeBackends, useStore } from "../support/store-backends.js";

describe.each(storeBackends())("$name store", (backend) => {
  const store = useStore(backend);

  it("gets what was set, as JSON values", async () => {
    const value = { text: "hello", list: [1, 2, 3], nested: { ok: true }, colon: ":starts with a colon" };
    await store().set("record", value);
    expect(await store().get("record")).toEqual(value);
    await store().set("record", "replaced");
    expect(await store().get("record")).toBe("replaced");
  });

  it("answers undefined for a key never set", async () => {
    expect(await store().get("missing")).toBeUndefined();
  });

  it("deletes, and says whether something was there", async () => {
    await store().set("doomed", 1);
    expect(await store().delete("doomed")).toBe(true);
    expect(await store().get("doomed")).toBeUndefined();
    expect(await store().delete("doomed")).toBe(false);
  });

  it("forgets a record once its TTL has passed", async () => {
    await store().set("short", "soon gone", 50);
    await store().set("long", "still here", 60_000);
    await until(async () => (await store().get("short")) === undefined, "the short-lived record to expire");
    expect(await store().get("long")).toBe("still here");
  });

  it("setIfAbsent writes only when nothing live is there", async () => {
    expect(await store().setIfAbsent("once", "first")).toBe(true);
    expect(await store().setIfAbsent("once", "second")).toBe(false);
    expect(await store().get("once")).toBe("first");
  });

  it("setIfAbsent is not blocked by an expired record", async () => {
    expect(await store().setIfAbsent("lease", "old", 50)).toBe(true);
    await until(() => store().setIfAbsent("lease", "new"), "the expired record to stop blocking setIfAbsent");
    expect(await store().get("lease")).toBe("new");
  });

  it("a value written by setIfAbsent with a TTL expires", async () => {
    expect(await store().setIfAbsent("event:1", true, 50)).toBe(true);
    expect(await store().get("event:1")).toBe(true);
    await until(async () => (await store().get("event:1")) === undefined, "the processed-event marker to expire");
  });

  it("of 100 concurrent setIfAbsent calls on one key exactly one wins", async () => {
    const results = await Promise.all(Array.from({ length: 100 }, (_, index) => store().setIfAbsent("race", { winner: index }, 60_000)));
    const winners = results.flatMap((won, index) => (won ? [index] : []));
    expect(winners).toHaveLength(1);
    expect(await store().get("race")).toEqual({ winner: winners[0] });
  });

  it("rejects a TTL that is not a positive number", async () => {
    await expect(store().set("bad-ttl", 1, -5)).rejects.toThrow(/positive number of milliseconds/);
    await expect(store().setIfAbsent("bad-ttl", 1, Number.NaN)).rejects.toThrow(/positive number of milliseconds/);
  });
});

describe("STORE_URL parsing", () => {
  it.each([
    ["", /STORE_URL: use sqlite:\/\//],
    ["postgres://db:5432/bot", /use sqlite:\/\/<path relative/],
    ["data/bot.sqlite", /use sqlite:\/\/<path relative/],
    ["sqlite://", /the SQLite path is empty/],
    ["sqlite://   ", /the SQLite path is empty/],
    ["redis://", /(host is missing|not a valid Redis URL)/],
    ["redis://localhost:notaport", /not a valid Redis URL/],
    ["redis://localhost:6379/cache", /database must be a number/],
    ["redis://localhost:6379/0?tls=yes", /options after/],
  ])("%j is refused with one clear line", (url, reason) => {
    let thrown: unknown;
    try {
      parseStoreUrl(url);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(StoreUrlError);
    const message = (thrown as Error).message;
    expect(message).toMatch(reason);
    expect(message).not.toContain("\n");
    expect(message).toContain(`(got "${url}")`);
  });

  it("never repeats a Redis password in the error", () => {
    expect(() => parseStoreUrl("redis://:hunter2@localhost:6379/cache")).toThrow(StoreUrlError);
    expect(() => parseStoreUrl("redis://:hunter2@localhost:6379/cache")).not.toThrow(/hunter2/);
  });

  it("resolves a relative SQLite path against the working folder and keeps an absolute one", () => {
    expect(parseStoreUrl("sqlite://data/bot.sqlite", "/srv/bot")).toEqual({ kind: "sqlite", path: "/srv/bot/data/bot.sqlite" });
    expect(parseStoreUrl("sqlite:///var/lib/bot/bot.sqlite", "/srv/bot")).toEqual({ kind: "sqlite", path: "/var/lib/bot/bot.sqlite" });
  });

  it("reads host, port and database from a Redis URL", () => {
    expect(parseStoreUrl("redis://cache.internal:6380/2")).toMatchObject({
      kind: "redis",
      host: "cache.internal",
      port: 6380,
      database: 2,
    });
    expect(parseStoreUrl("redis://cache.internal")).toMatchObject({ port: 6379, database: 0 });
  });

  it("openStore refuses a bad URL before touching anything", async () => {
    await expect(openStore("mongodb://localhost", silentLogger)).rejects.toBeInstanceOf(StoreUrlError);
  });
});

describe("opening a SQLite store", () => {
  let folder: Awaited<ReturnType<typeof temporaryFolder>>;
  beforeAll(async () => {
    folder = await temporaryFolder();
  });
  afterAll(async () => {
    await folder.remove();
  });

  it("creates the folders and the file of an absolute path on first run", async () => {
    const path = join(folder.path, "absolute", "deeper", "bot.sqlite");
    const store = await openStore(`sqlite://${path}`, silentLogger);
    await store.set("k", "v");
    await store.close();
    expect(existsSync(path)).toBe(true);
    const again = await openStore(`sqlite://${path}`, silentLogger);
    expect(await again.get("k")).toBe("v");
    await again.close();
  });

  it("creates the folders and the file of a path relative to the working folder", async () => {
    const path = join(folder.path, "relative", "data", "bot.sqlite");
    const store = await openStore(`sqlite://${relative(process.cwd(), path)}`, silentLogger);
    await store.set("k", "v");
    await store.close();
    expect(existsSync(path)).toBe(true);
  });

  it("throws StoreUnavailableError when the folder can't be created", async () => {
    const blocker = join(folder.path, "a-file");
    await writeFile(blocker, "not a folder");
    await expect(openStore(`sqlite://${join(blocker, "sub", "bot.sqlite")}`, silentLogger)).rejects.toThrow(StoreUnavailableError);
  });

  it("throws StoreUnavailableError when the path is not a file it can open", async () => {
    await expect(openStore(`sqlite://${folder.path}`, silentLogger)).rejects.toThrow(/cannot open the SQLite file/);
  });

  it("keeps nothing of a set whose last member went, not even its key", async () => {
    const path = join(folder.path, "sets.sqlite");
    const store = await openStore(`sqlite://${path}`, silentLogger);
    await store.addToSet("set:of:U0PERSON", "a", 60_000);
    await store.addToSet("set:of:U0PERSON", "b");
    await store.removeFromSet("set:of:U0PERSON", "a");
    await store.removeFromSet("set:of:U0PERSON", "b");
    await store.addToSet("set:kept", "c");
    await store.close();
    const sqlite = await import("sqlite3");
    const rows = await new Promise<unknown[]>((resolve, reject) => {
      const database = new sqlite.default.Database(path);
      database.all("SELECT key FROM keyv_sets UNION ALL SELECT key FROM keyv_set_expiry", (error, found) => {
        database.close();
        if (error) reject(error);
        else resolve(found);
      });
    });
    expect(rows).toEqual([{ key: "set:kept" }, { key: "set:kept" }]);
  });

  it("skips a record that is not valid JSON with a warning", async () => {
    const path = join(folder.path, "corrupt.sqlite");
    const { logger, warnings } = capturingLogger();
    const store = await openStore(`sqlite://${path}`, logger);
    await store.set("fine", 1);
    const sqlite = await import("sqlite3");
    await new Promise<void>((resolve, reject) => {
      const database = new sqlite.default.Database(path);
      database.run("INSERT INTO keyv (key, value) VALUES ('broken', '{not json')", (error) => {
        database.close();
        if (error) reject(error);
        else resolve();
      });
    });
    expect(await store.get("broken")).toBeUndefined();
    expect(await store.get("fine")).toBe(1);
    expect(warnings().map((line) => line.msg)).toEqual([expect.stringContaining("not valid JSON")]);
    await store.close();
  });
});

describeWithRedis("a Redis store whose server goes away", () => {
  let server: RedisServer | undefined;
  afterEach(async () => {
    await server?.stop();
    server = undefined;
  });

  it("throws StoreUnavailableError at start when Redis can't be reached", async () => {
    const gone = await startRedisServer();
    await gone.stop();
    await expect(openStore(gone.url, silentLogger)).rejects.toThrow(/The store is unavailable: cannot connect to Redis at 127\.0\.0\.1/);
  });

  it("fails fast with StoreUnavailableError while Redis is down, logs it once, and recovers when it is back", async () => {
    server = await startRedisServer();
    const { logger, warnings, lines } = capturingLogger();
    const store = await openStore(server.url, logger);
    await store.set("before", "kept");
    await server.stop();

    await expect(store.get("before")).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(store.set("during", 1)).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(store.setIfAbsent("during", 1, 1_000)).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(store.delete("before")).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(warnings().filter((line) => line.msg.startsWith("Lost the connection to Redis"))).toHaveLength(1);

    server = await startRedisServer(server.port);
    await until(
      () =>
        store.set("after", "back").then(
          () => true,
          () => false,
        ),
      "the store to work again once Redis is back",
      10_000,
    );
    expect(await store.get("after")).toBe("back");
    expect(lines.some((line) => line.msg.endsWith("is back"))).toBe(true);
    await store.close();
  });

  it("closes cleanly while Redis is down", async () => {
    server = await startRedisServer();
    const store = await openStore(server.url, silentLogger);
    await server.stop();
    server = undefined;
    await expect(store.close()).resolves.toBeUndefined();
  });
});
