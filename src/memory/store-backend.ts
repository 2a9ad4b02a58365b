// What the SQLite and Redis backends share: the few operations each does its own way (atomic
// insert, increment, sets), and the KeyValueStore built over them with keyv, TTL checks and the
// failure policy (every backend failure surfaces as StoreUnavailableError).
import { Keyv, type KeyvStoreAdapter } from "keyv";
import type KeyvRedis from "@keyv/redis";
import { StoreUnavailableError, DeadlineError } from "../errors.js";
import type { Logger } from "../logger.js";
import type { IndexEntry, IndexHit, IndexRange, KeyValueStore, SetListing } from "./types.js";

export interface Backend {
  readonly keyv: Keyv;
  readonly description: string;
  /** Writes an already serialised record unless a live one exists; true when it wrote. */
  insertIfAbsent(key: string, serialized: string, ttlMs: number | undefined): Promise<boolean>;
  /** Adds `by` in one atomic operation; a new or expired counter gets the TTL. Returns the total. */
  incrementBy(key: string, by: number, ttlMs: number): Promise<number>;
  addMember(key: string, member: string, ttlMs: number | undefined): Promise<void>;
  /** addMember, then insertIfAbsent, as one step where the backend can (one round trip). */
  insertListedIfAbsent(listing: SetListing, key: string, serialized: string, ttlMs: number | undefined): Promise<boolean>;
  removeMember(key: string, member: string): Promise<void>;
  members(key: string): Promise<string[]>;
  /** The stored (serialised) records of `keys`, undefined where missing; never deletes what expired. */
  rawMany(keys: readonly string[]): Promise<Array<string | undefined>>;
  addIndexed(entries: readonly IndexEntry[]): Promise<void>;
  removeIndexed(key: string, members: readonly string[]): Promise<void>;
  rangeIndexed(
    key: string,
    range: Required<Pick<IndexRange, "limit" | "order" | "min" | "max">> & Pick<IndexRange, "after">,
  ): Promise<IndexHit[]>;
  sizeIndexed(key: string): Promise<number>;
  trimIndexed(key: string, score: number): Promise<number>;
  incrementFieldsBy(key: string, by: Readonly<Record<string, number>>, ttlMs: number): Promise<void>;
  fieldsOf(key: string): Promise<Record<string, number>>;
  deleteFields(key: string, fields: readonly string[]): Promise<void>;
  /** Runs an operation with the backend's failure policy (deadline, error mapping). */
  guard<T>(operation: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export function newKeyv(adapter: KeyvStoreAdapter | KeyvRedis<unknown>): Keyv {
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

export function storeOver(backend: Backend, logger: Logger): KeyValueStore {
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
        return backend.insertIfAbsent(key, await serializedRecord(keyv, value, ttl), ttl);
      }),
    setIfAbsentListed: (entry, listing) =>
      backend.guard(async () => {
        const ttl = checkedTtl(entry.ttlMs);
        const serialized = await serializedRecord(keyv, entry.value, ttl);
        return backend.insertListedIfAbsent({ ...listing, ttlMs: checkedTtl(listing.ttlMs) }, entry.key, serialized, ttl);
      }),
    increment: (key, by, ttlMs) =>
      backend.guard(async () => {
        if (!Number.isSafeInteger(by)) throw new RangeError(`A store increment must be a whole number (got ${by})`);
        return backend.incrementBy(key, by, checkedTtl(ttlMs)!);
      }),
    addToSet: (key, member, ttlMs) => backend.guard(() => backend.addMember(key, member, checkedTtl(ttlMs))),
    removeFromSet: (key, member) => backend.guard(() => backend.removeMember(key, member)),
    setMembers: (key) => backend.guard(() => backend.members(key)),
    getMany: (keys) =>
      keys.length === 0
        ? Promise.resolve([])
        : backend.guard(async () => (await backend.rawMany(keys)).map((raw, index) => liveValue(raw, keys[index]!, backend, logger))),
    addToIndex: (entries) => {
      for (const entry of entries)
        if (!Number.isFinite(entry.score))
          return Promise.reject(new RangeError(`An index score must be a finite number (got ${entry.score})`));
      return entries.length === 0 ? Promise.resolve() : backend.guard(() => backend.addIndexed(entries));
    },
    removeFromIndex: (key, members) =>
      members.length === 0 ? Promise.resolve() : backend.guard(() => backend.removeIndexed(key, members)),
    indexRange: (key, range) =>
      backend.guard(() =>
        backend.rangeIndexed(key, {
          limit: Math.max(0, Math.floor(range.limit)),
          order: range.order ?? "desc",
          min: range.min ?? Number.NEGATIVE_INFINITY,
          max: range.max ?? Number.POSITIVE_INFINITY,
          ...(range.after ? { after: range.after } : {}),
        }),
      ),
    indexSize: (key) => backend.guard(() => backend.sizeIndexed(key)),
    trimIndex: (key, score) => backend.guard(() => backend.trimIndexed(key, score)),
    incrementFields: (key, by, ttlMs) =>
      backend.guard(async () => {
        for (const [field, amount] of Object.entries(by))
          if (!Number.isSafeInteger(amount)) throw new RangeError(`A store increment must be a whole number (got ${amount} for ${field})`);
        if (Object.keys(by).length > 0) await backend.incrementFieldsBy(key, by, checkedTtl(ttlMs)!);
      }),
    counterFields: (key) => backend.guard(() => backend.fieldsOf(key)),
    deleteCounterFields: (key, fields) => backend.guard(async () => (fields.length > 0 ? backend.deleteFields(key, fields) : undefined)),
    close: () => {
      closed ??= backend.close().catch((error: unknown) => {
        logger.warn({ err: error }, `Closing the ${backend.description} failed`);
      });
      return closed;
    },
  };
}

/** The value of a record as keyv wrote it, or undefined when it expired or is not keyv's JSON (logged). */
function liveValue(raw: string | undefined, key: string, backend: Backend, logger: Logger): unknown {
  if (raw === undefined) return undefined;
  try {
    const record = JSON.parse(raw) as { value?: unknown; expires?: unknown } | null;
    if (record === null || typeof record !== "object") return undefined;
    if (typeof record.expires === "number" && record.expires < Date.now()) return undefined;
    return record.value;
  } catch {
    logger.warn({ key }, `Skipped a stored record that is not valid JSON in the ${backend.description}`);
    return undefined;
  }
}

/** A record as keyv writes it (the value and its expiry), for the backends' own atomic writes. */
async function serializedRecord(keyv: Keyv, value: unknown, ttl: number | undefined): Promise<string> {
  return String(await keyv.serializeData({ value, expires: ttl === undefined ? undefined : Date.now() + ttl }));
}

function checkedTtl(ttlMs: number | undefined): number | undefined {
  if (ttlMs === undefined) return undefined;
  if (!Number.isFinite(ttlMs) || ttlMs <= 0) throw new RangeError(`A store TTL must be a positive number of milliseconds (got ${ttlMs})`);
  return Math.ceil(ttlMs);
}

/**
 * Settles as `operation` does, or rejects with a DeadlineError once `ms` pass (the operation goes on
 * unobserved). One promise and one timer: every store operation goes through here.
 */
export function withinDeadline<T>(operation: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new DeadlineError(`no answer after ${ms} ms ${what}`)), ms);
    operation.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

export function asUnavailable(error: unknown, context: string): Error {
  if (error instanceof StoreUnavailableError || error instanceof RangeError) return error;
  return new StoreUnavailableError(`${context}: ${reasonOf(error)}`);
}

export function reasonOf(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return reasonOf(error.errors[0]);
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}
