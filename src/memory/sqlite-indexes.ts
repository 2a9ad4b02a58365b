// The SQLite side of the ordered indexes and the counter groups (see KeyValueStore): one table
// each, every operation one statement (lists travel as JSON through json_each), so a page of an
// index of 100,000 members is one walk down (key, score, member).
import type { Backend } from "./store-backend.js";
import type { SqliteAdapter } from "./sqlite-adapter.js";

const INDEX_TABLE = "keyv_index";
const COUNTER_TABLE = "keyv_counters";
/** SQLite's REAL holds ±Infinity, but a bound is clearer as the largest finite double. */
const HIGHEST = Number.MAX_VALUE;

export const SQLITE_INDEX_SCHEMA = [
  `CREATE TABLE IF NOT EXISTS ${INDEX_TABLE} (key TEXT NOT NULL, member TEXT NOT NULL, score REAL NOT NULL, PRIMARY KEY (key, member)) WITHOUT ROWID`,
  `CREATE INDEX IF NOT EXISTS ${INDEX_TABLE}_order ON ${INDEX_TABLE} (key, score, member)`,
  `CREATE TABLE IF NOT EXISTS ${COUNTER_TABLE} (key TEXT NOT NULL, field TEXT NOT NULL, value INTEGER NOT NULL, expires INTEGER NOT NULL, PRIMARY KEY (key, field)) WITHOUT ROWID`,
];

export const deleteExpiredCounters = (adapter: SqliteAdapter, now: number) =>
  adapter.query(`DELETE FROM ${COUNTER_TABLE} WHERE expires < ?`, now);

const bounded = (value: number) => Math.max(-HIGHEST, Math.min(HIGHEST, value));

type IndexOperations = Pick<
  Backend,
  "addIndexed" | "removeIndexed" | "rangeIndexed" | "sizeIndexed" | "trimIndexed" | "incrementFieldsBy" | "fieldsOf" | "deleteFields"
>;

/** A file opened read-only that has no index tables yet (written only by older versions): empty indexes, no counters. */
export const NO_INDEXES: IndexOperations = {
  addIndexed: async () => {
    throw new Error("the store is open for reading only");
  },
  removeIndexed: async () => {
    throw new Error("the store is open for reading only");
  },
  rangeIndexed: async () => [],
  sizeIndexed: async () => 0,
  trimIndexed: async () => 0,
  incrementFieldsBy: async () => {
    throw new Error("the store is open for reading only");
  },
  fieldsOf: async () => ({}),
  deleteFields: async () => {
    throw new Error("the store is open for reading only");
  },
};

export function sqliteIndexOperations(adapter: SqliteAdapter): IndexOperations {
  return {
    async addIndexed(entries) {
      await adapter.query(
        `INSERT INTO ${INDEX_TABLE} (key, member, score)
         SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]') FROM json_each(?) WHERE true
         ON CONFLICT(key, member) DO UPDATE SET score = excluded.score`,
        JSON.stringify(entries.map((entry) => [entry.key, entry.member, entry.score])),
      );
    },
    async removeIndexed(key, members) {
      await adapter.query(
        `DELETE FROM ${INDEX_TABLE} WHERE key = ? AND member IN (SELECT value FROM json_each(?))`,
        key,
        JSON.stringify(members),
      );
    },
    async rangeIndexed(key, range) {
      if (range.limit === 0) return [];
      const min = bounded(range.min);
      if (range.order === "asc") {
        return (await adapter.query(
          `SELECT member, score FROM ${INDEX_TABLE} WHERE key = ? AND score >= ? AND score <= ? ORDER BY score ASC, member ASC LIMIT ?`,
          key,
          min,
          bounded(range.max),
          range.limit,
        )) as Array<{ member: string; score: number }>;
      }
      // The walk starts at the cursor's score, so a deep page skips only the members that tie with it.
      const after = range.after && range.after.score <= range.max ? range.after : undefined;
      const max = bounded(after ? after.score : range.max);
      return (await adapter.query(
        `SELECT member, score FROM ${INDEX_TABLE} WHERE key = ? AND score <= ? AND score >= ? AND (? IS NULL OR score < ? OR member < ?)
         ORDER BY score DESC, member DESC LIMIT ?`,
        key,
        max,
        min,
        after ? 1 : null,
        max,
        after?.member ?? "",
        range.limit,
      )) as Array<{ member: string; score: number }>;
    },
    async sizeIndexed(key) {
      const rows = (await adapter.query(`SELECT count(*) AS size FROM ${INDEX_TABLE} WHERE key = ?`, key)) as Array<{ size: number }>;
      return Number(rows[0]?.size ?? 0);
    },
    async trimIndexed(key, score) {
      return (await adapter.query(`DELETE FROM ${INDEX_TABLE} WHERE key = ? AND score < ? RETURNING member`, key, bounded(score))).length;
    },
    async incrementFieldsBy(key, by, ttlMs) {
      // One statement: racing processes never lose an addition; an expired group starts again from its first add.
      const now = Date.now();
      await adapter.query(
        // A field new to a live group takes the group's expiry, as one Redis hash has one.
        `INSERT INTO ${COUNTER_TABLE} (key, field, value, expires)
         SELECT ?, key, value, coalesce((SELECT max(expires) FROM ${COUNTER_TABLE} WHERE key = ? AND expires >= ?), ?) FROM json_each(?) WHERE true
         ON CONFLICT(key, field) DO UPDATE SET
           value = CASE WHEN ${COUNTER_TABLE}.expires < ? THEN excluded.value ELSE ${COUNTER_TABLE}.value + excluded.value END,
           expires = CASE WHEN ${COUNTER_TABLE}.expires < ? THEN excluded.expires ELSE ${COUNTER_TABLE}.expires END`,
        key,
        key,
        now,
        now + ttlMs,
        JSON.stringify(by),
        now,
        now,
      );
    },
    async fieldsOf(key) {
      const rows = (await adapter.query(
        `SELECT field, value FROM ${COUNTER_TABLE} WHERE key = ? AND expires >= ?`,
        key,
        Date.now(),
      )) as Array<{
        field: string;
        value: number;
      }>;
      return Object.fromEntries(rows.map((row) => [row.field, Number(row.value)]));
    },
    async deleteFields(key, fields) {
      await adapter.query(
        `DELETE FROM ${COUNTER_TABLE} WHERE key = ? AND field IN (SELECT value FROM json_each(?))`,
        key,
        JSON.stringify(fields),
      );
    },
  };
}
