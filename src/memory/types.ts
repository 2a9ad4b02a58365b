// The store seam: everything that must outlive the process goes through this interface.
// keyv lives only in the file that implements it.
import type { Person } from "../contracts/types.js";

export interface KeyValueStore {
  /** Raw stored value, or undefined. Callers validate it (zod) before use: it is untrusted. */
  get(key: string): Promise<unknown>;
  set(key: string, value: unknown, ttlMs?: number): Promise<void>;
  delete(key: string): Promise<boolean>;
  /**
   * Atomic set-if-absent across every process sharing the store (Redis SET NX, SQLite
   * INSERT OR IGNORE). Returns true when this call wrote the value.
   */
  setIfAbsent(key: string, value: unknown, ttlMs?: number): Promise<boolean>;
  /**
   * Atomic add across every process sharing the store (Redis INCRBY, SQLite upsert); returns the
   * new total. A missing or expired counter starts at 0 and lives `ttlMs` from that moment: the
   * expiry is set once, so a counter is a fixed window.
   */
  increment(key: string, by: number, ttlMs: number): Promise<number>;
  /**
   * Atomic set of strings under `key` across every process sharing the store (Redis SADD, SQLite
   * a row per member): adding one member never loses another process's. With `ttlMs` the whole
   * set lives that long after its latest add. Set keys are a keyspace of their own: never pass
   * a key that also holds a value.
   */
  addToSet(key: string, member: string, ttlMs?: number): Promise<void>;
  /**
   * addToSet(listing…) and then setIfAbsent(entry…) in one step, so a record is never written
   * without being listed (Redis: one MULTI, one round trip). True when it wrote the value.
   */
  setIfAbsentListed(entry: StoreEntry, listing: SetListing): Promise<boolean>;
  /** Atomic removal of one member (Redis SREM); removing one that is not there does nothing. */
  removeFromSet(key: string, member: string): Promise<void>;
  /** The members of the set (none when it does not exist); in the order added where the backend keeps one. */
  setMembers(key: string): Promise<string[]>;
  /** Raw stored values of several keys in one round trip, in the order asked (undefined where missing). Untrusted like `get`. */
  getMany(keys: readonly string[]): Promise<unknown[]>;
  /**
   * Ordered indexes (Redis sorted sets, an SQLite table ordered by (key, score, member)): adds or
   * moves each member of each index in one round trip. Index keys are a keyspace of their own and
   * never expire: callers trim them (trimIndex, removeFromIndex).
   */
  addToIndex(entries: readonly IndexEntry[]): Promise<void>;
  removeFromIndex(key: string, members: readonly string[]): Promise<void>;
  /** Members by score, highest first (or lowest first with `order: "asc"`), after the cursor, within the bounds. */
  indexRange(key: string, range: IndexRange): Promise<IndexHit[]>;
  indexSize(key: string): Promise<number>;
  /** Removes every member scored below `score`; returns how many went. */
  trimIndex(key: string, score: number): Promise<number>;
  /**
   * Atomic adds to several named counters under one key across every process (Redis HINCRBY in one
   * script, SQLite one upsert). A new key lives `ttlMs` from its first add, like `increment`.
   */
  incrementFields(key: string, by: Readonly<Record<string, number>>, ttlMs: number): Promise<void>;
  /** The counters under `key` (none when it does not exist or expired). */
  counterFields(key: string): Promise<Record<string, number>>;
  /** Deletes these counters under `key` (Redis HDEL); the others keep their values and expiry. */
  deleteCounterFields(key: string, fields: readonly string[]): Promise<void>;
  close(): Promise<void>;
}

export interface IndexEntry {
  readonly key: string;
  readonly member: string;
  /** A finite number (epoch milliseconds for time orders). */
  readonly score: number;
}

export interface IndexHit {
  readonly member: string;
  readonly score: number;
}

export interface IndexRange {
  readonly limit: number;
  /** Default "desc": highest score first. */
  readonly order?: "desc" | "asc";
  /** Inclusive bounds. */
  readonly min?: number;
  readonly max?: number;
  /** Only members after this one in the order ("desc": a lower score, or the same score and a lower member). Desc only. */
  readonly after?: IndexHit;
}

export interface StoreEntry {
  readonly key: string;
  readonly value: unknown;
  readonly ttlMs?: number;
}

export interface SetListing {
  readonly set: string;
  readonly member: string;
  readonly ttlMs?: number;
}

export interface Fact {
  readonly id: string;
  readonly text: string;
  readonly createdAt: number;
  readonly lastUsedAt: number;
  readonly uses: number;
}

/** One remembered exchange: the person's message and the final answer (never tool chatter). */
export interface Turn {
  readonly user: string;
  readonly assistant: string;
  readonly at: number;
  /** Who asked: a later run of someone else reads their message as data. Absent in turns stored before provenance. */
  readonly asker?: Person;
  /** The answer was made while the run read others' text (a thread, a file, a tool's result, memory): it is data to later runs. */
  readonly madeFromData?: boolean;
}
