// What the SQLite and Redis backends share: the few operations each does its own way (atomic
// insert, increment, sets), and the KeyValueStore built over them with keyv, TTL checks and the
// failure policy (every backend failure surfaces as StoreUnavailableError).
import { Keyv, type KeyvStoreAdapter } from "keyv";
import type KeyvRedis from "@keyv/redis";
import { StoreUnavailableError } from "../errors.js";
import type { Logger } from "../logger.js";
import type { KeyValueStore, SetListing } from "./types.js";

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
    close: () => {
      closed ??= backend.close().catch((error: unknown) => {
        logger.warn({ err: error }, `Closing the ${backend.description} failed`);
      });
      return closed;
    },
  };
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

export class DeadlineError extends Error {}

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
