// The store seam's one implementation: keyv inside, chosen by STORE_URL. SQLite (a file,
// the embedded default) or Redis (several bot processes). Every failure of the backend
// surfaces as StoreUnavailableError; a Redis operation settles within REDIS_DEADLINE_MS,
// also while Redis is gone (the client reconnects on its own and the store recovers).
import { mkdirSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import { Keyv } from "keyv";
import KeyvSqlite from "@keyv/sqlite";
import type KeyvRedis from "@keyv/redis";
import { StoreUnavailableError, StoreUrlError } from "../errors.js";
import type { Logger } from "../logger.js";
import type { KeyValueStore } from "./types.js";

export type StoreLocation =
  | { readonly kind: "sqlite"; readonly path: string }
  | { readonly kind: "redis"; readonly url: string; readonly host: string; readonly port: number; readonly database: number };

const SQLITE_BUSY_TIMEOUT_MS = 5_000;
const SQLITE_SWEEP_INTERVAL_MS = 10 * 60_000;
const REDIS_CONNECT_TIMEOUT_MS = 2_000;
const REDIS_COMMAND_TIMEOUT_MS = 1_500;
const REDIS_DEADLINE_MS = 2_000;
const REDIS_MAX_RECONNECT_DELAY_MS = 1_000;
const TABLE = "keyv";
/** Members of the atomic sets, one row each (keyv's table holds one JSON value per key). */
const SETS_TABLE = "keyv_sets";

const URL_HELP = "use sqlite://<path relative to the working folder>, sqlite:///<absolute path> or redis://host:port[/db]";

/** Throws StoreUrlError (one line) for anything but the three accepted forms. */
export function parseStoreUrl(url: string, cwd: string = process.cwd()): StoreLocation {
  const shown = redactPassword(url);
  if (url.startsWith("sqlite://")) {
    const path = url.slice("sqlite://".length);
    if (path.trim() === "") throw new StoreUrlError(shown, `the SQLite path is empty; ${URL_HELP}`);
    return { kind: "sqlite", path: isAbsolute(path) ? path : resolve(cwd, path) };
  }
  if (!/^rediss?:\/\//.test(url)) throw new StoreUrlError(shown, URL_HELP);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new StoreUrlError(shown, `not a valid Redis URL; ${URL_HELP}`);
  }
  if (parsed.hostname === "") throw new StoreUrlError(shown, `the Redis host is missing; ${URL_HELP}`);
  const database = parsed.pathname === "" || parsed.pathname === "/" ? "0" : parsed.pathname.slice(1);
  if (!/^\d{1,2}$/.test(database)) throw new StoreUrlError(shown, `the Redis database must be a number like /0; ${URL_HELP}`);
  if (parsed.search !== "" || parsed.hash !== "") throw new StoreUrlError(shown, `options after "?" or "#" are not supported; ${URL_HELP}`);
  return { kind: "redis", url, host: parsed.hostname, port: parsed.port === "" ? 6379 : Number(parsed.port), database: Number(database) };
}

/**
 * Opens the store named by `url` and checks that it works: throws StoreUrlError for a URL
 * it can't use and StoreUnavailableError when the store can't be opened.
 */
export async function openStore(url: string, logger: Logger): Promise<KeyValueStore> {
  const location = parseStoreUrl(url);
  return location.kind === "sqlite" ? openSqlite(location.path, logger) : openRedis(location, logger);
}

interface Backend {
  readonly keyv: Keyv;
  readonly description: string;
  /** Writes an already serialised record unless a live one exists; true when it wrote. */
  insertIfAbsent(key: string, serialized: string, ttlMs: number | undefined): Promise<boolean>;
  /** Adds `by` in one atomic operation; a new or expired counter gets the TTL. Returns the total. */
  incrementBy(key: string, by: number, ttlMs: number): Promise<number>;
  addMember(key: string, member: string, ttlMs: number | undefined): Promise<void>;
  removeMember(key: string, member: string): Promise<void>;
  members(key: string): Promise<string[]>;
  /** Runs an operation with the backend's failure policy (deadline, error mapping). */
  guard<T>(operation: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

async function openSqlite(path: string, logger: Logger): Promise<KeyValueStore> {
  try {
    mkdirSync(dirname(path), { recursive: true });
  } catch (error) {
    throw new StoreUnavailableError(`cannot create the folder for ${path}: ${reasonOf(error)}; make it writable or point STORE_URL elsewhere`);
  }
  const adapter = new KeyvSqlite({ uri: `sqlite://${path}`, table: TABLE, busyTimeout: SQLITE_BUSY_TIMEOUT_MS });
  const deleteExpired = async (): Promise<void> => {
    await adapter.query(`DELETE FROM ${TABLE} WHERE ${expiresOf("value")} < ?`, Date.now());
    await adapter.query(`DELETE FROM ${SETS_TABLE} WHERE expires < ?`, Date.now());
  };
  try {
    // WAL lets a second process read while one writes; NORMAL sync is durable across process crashes.
    await adapter.query("PRAGMA journal_mode = WAL");
    await adapter.query("PRAGMA synchronous = NORMAL");
    await adapter.query(`CREATE TABLE IF NOT EXISTS ${SETS_TABLE} (key TEXT NOT NULL, member TEXT NOT NULL, expires INTEGER, PRIMARY KEY (key, member))`);
    // Also proves the file is writable.
    await deleteExpired();
  } catch (error) {
    await adapter.close().catch(() => undefined);
    throw new StoreUnavailableError(`cannot open the SQLite file ${path}: ${reasonOf(error)}; check that it is a writable file or point STORE_URL elsewhere`);
  }
  // Records with a TTL that nobody reads again (processed event ids) would otherwise pile up.
  const sweeper = setInterval(() => {
    deleteExpired().catch((error: unknown) => logger.warn({ err: error }, `Could not delete expired records from the SQLite file ${path}`));
  }, SQLITE_SWEEP_INTERVAL_MS);
  sweeper.unref();

  const backend: Backend = {
    keyv: newKeyv(adapter),
    description: `SQLite file ${path}`,
    async insertIfAbsent(key, serialized, _ttlMs) {
      // One statement: a new key is inserted, an expired record is overwritten, a live one wins.
      const rows = (await adapter.query(
        `INSERT INTO ${TABLE} (key, value) VALUES (?, ?)
         ON CONFLICT(key) DO UPDATE SET value = excluded.value WHERE ${expiresOf(`${TABLE}.value`)} < ?
         RETURNING key`,
        key,
        serialized,
        Date.now(),
      )) as unknown[];
      return rows.length === 1;
    },
    async incrementBy(key, by, ttlMs) {
      // One statement, so racing processes never lose an addition; the record stays keyv's JSON shape.
      const now = Date.now();
      const rows = (await adapter.query(
        `INSERT INTO ${TABLE} (key, value) VALUES (?, json_object('value', ?, 'expires', ?))
         ON CONFLICT(key) DO UPDATE SET value = CASE
           WHEN NOT json_valid(${TABLE}.value) THEN excluded.value
           WHEN ${expiresOf(`${TABLE}.value`)} < ? THEN excluded.value
           WHEN json_type(${TABLE}.value, '$.value') NOT IN ('integer', 'real') THEN excluded.value
           ELSE json_set(${TABLE}.value, '$.value', json_extract(${TABLE}.value, '$.value') + ?) END
         RETURNING json_extract(value, '$.value') AS total`,
        key,
        by,
        now + ttlMs,
        now,
        by,
      )) as Array<{ total: number }>;
      return Number(rows[0]?.total ?? by);
    },
    async addMember(key, member, ttlMs) {
      // A member already there keeps its row (and so its place in the order added).
      await adapter.query(`INSERT INTO ${SETS_TABLE} (key, member) VALUES (?, ?) ON CONFLICT(key, member) DO NOTHING`, key, member);
      await adapter.query(`UPDATE ${SETS_TABLE} SET expires = ? WHERE key = ?`, ttlMs === undefined ? null : Date.now() + ttlMs, key);
    },
    async removeMember(key, member) {
      await adapter.query(`DELETE FROM ${SETS_TABLE} WHERE key = ? AND member = ?`, key, member);
    },
    async members(key) {
      const rows = (await adapter.query(`SELECT member FROM ${SETS_TABLE} WHERE key = ? AND (expires IS NULL OR expires >= ?) ORDER BY rowid`, key, Date.now())) as Array<{ member: string }>;
      return rows.map((row) => row.member);
    },
    async guard(operation) {
      try {
        return await operation();
      } catch (error) {
        throw asUnavailable(error, `the SQLite file ${path} failed`);
      }
    },
    async close() {
      clearInterval(sweeper);
      await adapter.close();
    },
  };
  return storeOver(backend, logger);
}

/** SQL for the expiry keyv writes into each record, or NULL (never expires, or not JSON). */
function expiresOf(column: string): string {
  return `(CASE WHEN json_valid(${column}) THEN json_extract(${column}, '$.expires') END)`;
}

async function openRedis(location: Extract<StoreLocation, { kind: "redis" }>, logger: Logger): Promise<KeyValueStore> {
  const where = `Redis at ${location.host}:${location.port}/${location.database}`;
  // Loaded only for Redis: the client library is a third of a SQLite process's start time.
  const { default: KeyvRedis, createClient } = await import("@keyv/redis");
  const client = createClient({
    url: location.url,
    // Fail fast while disconnected instead of queueing commands until Redis returns.
    disableOfflineQueue: true,
    commandOptions: { timeout: REDIS_COMMAND_TIMEOUT_MS },
    socket: {
      connectTimeout: REDIS_CONNECT_TIMEOUT_MS,
      reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, REDIS_MAX_RECONNECT_DELAY_MS),
    },
  });
  let lastError = "no answer";
  let state: "connecting" | "up" | "down" = "connecting";
  client.on("error", (error: unknown) => {
    lastError = reasonOf(error);
    if (state === "up") logger.warn({ err: error }, `Lost the connection to ${where}; store operations fail until it is back`);
    if (state !== "connecting") state = "down";
  });
  client.on("ready", () => {
    if (state === "down") logger.info(`The connection to ${where} is back`);
    state = "up";
  });
  try {
    await withinDeadline(client.connect(), REDIS_CONNECT_TIMEOUT_MS + 500, "connecting");
  } catch (error) {
    client.destroy();
    throw new StoreUnavailableError(`cannot connect to ${where}: ${error instanceof DeadlineError ? lastError : reasonOf(error)}; check that Redis is running and STORE_URL is right`);
  }
  const adapter = new KeyvRedis(client, { throwOnErrors: true, throwOnConnectError: true });
  const backend: Backend = {
    keyv: newKeyv(adapter),
    description: where,
    async insertIfAbsent(key, serialized, ttlMs) {
      const reply = await client.set(key, serialized, ttlMs === undefined ? { condition: "NX" } : { condition: "NX", expiration: { type: "PX", value: ttlMs } });
      return reply === "OK";
    },
    async incrementBy(key, by, ttlMs) {
      const total = await client.eval(INCREMENT_SCRIPT, { keys: [key], arguments: [String(by), String(ttlMs)] });
      return Number(total);
    },
    async addMember(key, member, ttlMs) {
      // One transaction, so a set never outlives its expiry because a crash came between the two.
      const transaction = client.multi().sAdd(key, member);
      if (ttlMs === undefined) transaction.persist(key);
      else transaction.pExpire(key, ttlMs);
      await transaction.exec();
    },
    async removeMember(key, member) {
      await client.sRem(key, member);
    },
    async members(key) {
      return client.sMembers(key);
    },
    async guard(operation) {
      try {
        return await withinDeadline(operation(), REDIS_DEADLINE_MS, "waiting for Redis");
      } catch (error) {
        throw asUnavailable(error, `${where} failed`);
      }
    },
    async close() {
      if (client.isReady) await client.close();
      else if (client.isOpen) client.destroy();
    },
  };
  return storeOver(backend, logger);
}

/** INCRBY and the first expiry in one script, so a crash between them can't leave a counter that never resets; a record that is not a counter is replaced. */
const INCREMENT_SCRIPT = `local ok, total = pcall(redis.call, 'INCRBY', KEYS[1], ARGV[1])
if not ok then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return tonumber(ARGV[1])
end
if redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return total`;

function newKeyv(adapter: KeyvSqlite | KeyvRedis<unknown>): Keyv {
  // Keys are stored exactly as given (no namespace prefix), so raw statements address the same rows.
  // Values are JSON by contract, so plain JSON replaces keyv's slower Buffer-aware codec.
  const keyv = new Keyv(adapter, {
    namespace: undefined,
    useKeyPrefix: false,
    throwOnErrors: true,
    serialize: (data) => JSON.stringify(data),
    deserialize: (text) => JSON.parse(text) as never,
  });
  // Failures reach callers as thrown errors (throwOnErrors); the event copy needs no listener work.
  keyv.on("error", () => undefined);
  return keyv;
}

function storeOver(backend: Backend, logger: Logger): KeyValueStore {
  const { keyv } = backend;
  let closed: Promise<void> | undefined;
  return {
    get: (key) =>
      backend.guard(async () => {
        try {
          return await keyv.get(key);
        } catch (error) {
          if (!(error instanceof SyntaxError)) throw error;
          logger.warn({ key, err: error }, `Skipped a stored record that is not valid JSON in the ${backend.description}`);
          return undefined;
        }
      }),
    set: (key, value, ttlMs) =>
      backend.guard(async () => {
        await keyv.set(key, value, checkedTtl(ttlMs));
      }),
    delete: (key) => backend.guard(() => keyv.delete(key)),
    setIfAbsent: (key, value, ttlMs) =>
      backend.guard(async () => {
        const ttl = checkedTtl(ttlMs);
        const serialized = await keyv.serializeData({ value, expires: ttl === undefined ? undefined : Date.now() + ttl });
        return backend.insertIfAbsent(key, String(serialized), ttl);
      }),
    increment: (key, by, ttlMs) =>
      backend.guard(async () => {
        if (!Number.isSafeInteger(by)) throw new RangeError(`A store increment must be a whole number (got ${by})`);
        return backend.incrementBy(key, by, checkedTtl(ttlMs)!);
      }),
    addToSet: (key, member, ttlMs) => backend.guard(() => backend.addMember(key, member, checkedTtl(ttlMs))),
    removeFromSet: (key, member) => backend.guard(() => backend.removeMember(key, member)),
    setMembers: (key) => backend.guard(() => backend.members(key)),
    close: () => {
      closed ??= backend.close().catch((error: unknown) => {
        logger.warn({ err: error }, `Closing the ${backend.description} failed`);
      });
      return closed;
    },
  };
}

function checkedTtl(ttlMs: number | undefined): number | undefined {
  if (ttlMs === undefined) return undefined;
  if (!Number.isFinite(ttlMs) || ttlMs <= 0) throw new RangeError(`A store TTL must be a positive number of milliseconds (got ${ttlMs})`);
  return Math.ceil(ttlMs);
}

class DeadlineError extends Error {}

async function withinDeadline<T>(operation: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineError(`no answer after ${ms} ms ${what}`)), ms);
  });
  operation.catch(() => undefined);
  try {
    return await Promise.race([operation, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

function asUnavailable(error: unknown, context: string): Error {
  if (error instanceof StoreUnavailableError || error instanceof RangeError) return error;
  return new StoreUnavailableError(`${context}: ${reasonOf(error)}`);
}

function reasonOf(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return reasonOf(error.errors[0]);
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}

function redactPassword(url: string): string {
  return url.replace(/^(rediss?:\/\/[^:@/]*:)[^@/]*@/, "$1***@");
}
