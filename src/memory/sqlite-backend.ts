// The embedded store: a SQLite file through keyv, with the atomic operations as single SQL
// statements and a sweeper for expired records.
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { StoreUnavailableError } from "../errors.js";
import type { Logger } from "../logger.js";
import { asUnavailable, newKeyv, reasonOf, storeOver, type Backend } from "./store-backend.js";
import { SqliteAdapter } from "./sqlite-adapter.js";
import { deleteExpiredCounters, NO_INDEXES, SQLITE_INDEX_SCHEMA, sqliteIndexOperations } from "./sqlite-indexes.js";
import type { KeyValueStore } from "./types.js";

const SQLITE_BUSY_TIMEOUT_MS = 5_000;
const SQLITE_SWEEP_INTERVAL_MS = 10 * 60_000;
const TABLE = "keyv";
/** Members of the atomic sets, one row each (keyv's table holds one JSON value per key). */
const SETS_TABLE = "keyv_sets";
/**
 * Each set's expiry, one row per set: an add renews one row, not every member's (a set of
 * unfinished messages can hold thousands). Members' own `expires` is from older versions.
 */
const SET_EXPIRY_TABLE = "keyv_set_expiry";

/** `readOnly`: reads only (beside the process that owns the file): creates, sweeps and writes nothing. */
export async function openSqlite(path: string, logger: Logger, readOnly = false): Promise<KeyValueStore> {
  if (!readOnly) {
    try {
      mkdirSync(dirname(path), { recursive: true });
    } catch (error) {
      throw new StoreUnavailableError(
        `cannot create the folder for ${path}: ${reasonOf(error)}; make it writable or point STORE_URL elsewhere`,
      );
    }
  }
  const adapter = new SqliteAdapter(path, TABLE, SQLITE_BUSY_TIMEOUT_MS, readOnly);
  const deleteExpired = async (): Promise<void> => {
    await adapter.query(`DELETE FROM ${TABLE} WHERE ${expiresOf("value")} < ?`, Date.now());
    const now = Date.now();
    await adapter.query(`DELETE FROM ${SETS_TABLE} WHERE expires < ?`, now);
    await adapter.query(`DELETE FROM ${SETS_TABLE} WHERE key IN (SELECT key FROM ${SET_EXPIRY_TABLE} WHERE expires < ?)`, now);
    await adapter.query(`DELETE FROM ${SET_EXPIRY_TABLE} WHERE expires < ?`, now);
    await deleteExpiredCounters(adapter, now);
  };
  const prepareFile = async (): Promise<void> => {
    // WAL lets a second process read while one writes; NORMAL sync is durable across process crashes.
    await adapter.query("PRAGMA journal_mode = WAL");
    await adapter.query("PRAGMA synchronous = NORMAL");
    await adapter.query(
      `CREATE TABLE IF NOT EXISTS ${SETS_TABLE} (key TEXT NOT NULL, member TEXT NOT NULL, expires INTEGER, PRIMARY KEY (key, member))`,
    );
    await adapter.query(`CREATE TABLE IF NOT EXISTS ${SET_EXPIRY_TABLE} (key TEXT PRIMARY KEY, expires INTEGER)`);
    for (const statement of SQLITE_INDEX_SCHEMA) await adapter.query(statement);
    // Also proves the file is writable.
    await deleteExpired();
  };
  // A file no version with indexes has written to yet has none to read.
  let hasIndexes = true;
  try {
    // Reading only: the first query proves the file can be read.
    if (readOnly)
      hasIndexes = (await adapter.query(`SELECT 1 FROM sqlite_master WHERE name IN ('keyv_index', 'keyv_counters')`)).length === 2;
    else await prepareFile();
  } catch (error) {
    await adapter.close().catch(() => undefined);
    throw new StoreUnavailableError(
      `cannot open the SQLite file ${path}${readOnly ? " for reading" : ""}: ${reasonOf(error)}; check that it is a ${readOnly ? "readable" : "writable"} file or point STORE_URL elsewhere`,
    );
  }
  // Records with a TTL that nobody reads again (processed event ids) would otherwise pile up.
  const sweeper = readOnly
    ? undefined
    : setInterval(() => {
        deleteExpired().catch((error: unknown) =>
          logger.warn({ err: error }, `Could not delete expired records from the SQLite file ${path}`),
        );
      }, SQLITE_SWEEP_INTERVAL_MS);
  sweeper?.unref();

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
      // As in Redis, a set that expired starts empty again, even before the sweeper deleted its members.
      const now = Date.now();
      await adapter.query(
        `DELETE FROM ${SETS_TABLE} WHERE key = ? AND EXISTS (SELECT 1 FROM ${SET_EXPIRY_TABLE} WHERE key = ? AND expires < ?)`,
        key,
        key,
        now,
      );
      await adapter.query(`INSERT INTO ${SETS_TABLE} (key, member) VALUES (?, ?) ON CONFLICT(key, member) DO NOTHING`, key, member);
      await adapter.query(
        `INSERT INTO ${SET_EXPIRY_TABLE} (key, expires) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET expires = excluded.expires`,
        key,
        ttlMs === undefined ? null : now + ttlMs,
      );
    },
    async insertListedIfAbsent(listing, key, serialized, ttlMs) {
      // One process per file: listed first, a crash in between leaves a member without a record, which readers drop.
      await backend.addMember(listing.set, listing.member, listing.ttlMs);
      return backend.insertIfAbsent(key, serialized, ttlMs);
    },
    async removeMember(key, member) {
      await adapter.query(`DELETE FROM ${SETS_TABLE} WHERE key = ? AND member = ?`, key, member);
      // As in Redis, a set without members is no more: its key leaves nothing behind (it may name a person).
      await adapter.query(
        `DELETE FROM ${SET_EXPIRY_TABLE} WHERE key = ? AND NOT EXISTS (SELECT 1 FROM ${SETS_TABLE} WHERE key = ?)`,
        key,
        key,
      );
    },
    async members(key) {
      const now = Date.now();
      const rows = (await adapter.query(
        `SELECT member FROM ${SETS_TABLE} WHERE key = ? AND (expires IS NULL OR expires >= ?)
           AND NOT EXISTS (SELECT 1 FROM ${SET_EXPIRY_TABLE} WHERE key = ? AND expires < ?) ORDER BY rowid`,
        key,
        now,
        key,
        now,
      )) as Array<{ member: string }>;
      return rows.map((row) => row.member);
    },
    async rawMany(keys) {
      return (await adapter.getMany<string>([...keys])) as Array<string | undefined>;
    },
    ...(hasIndexes ? sqliteIndexOperations(adapter) : NO_INDEXES),
    async guard(operation) {
      try {
        return await operation();
      } catch (error) {
        throw asUnavailable(error, `the SQLite file ${path} failed`);
      }
    },
    async close() {
      if (sweeper) clearInterval(sweeper);
      await adapter.close();
    },
  };
  return storeOver(backend, logger);
}

/** SQL for the expiry keyv writes into each record, or NULL (never expires, or not JSON). */
function expiresOf(column: string): string {
  return `(CASE WHEN json_valid(${column}) THEN json_extract(${column}, '$.expires') END)`;
}
