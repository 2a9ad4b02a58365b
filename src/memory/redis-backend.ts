// The shared store for several bot processes: Redis through keyv. An operation settles within
// REDIS_DEADLINE_MS, also while Redis is gone (the client reconnects on its own and the store
// recovers).
import { StoreUnavailableError, DeadlineError } from "../errors.js";
import type { Logger } from "../logger.js";
import { asUnavailable, newKeyv, reasonOf, storeOver, withinDeadline, type Backend } from "./store-backend.js";
import { redisIndexOperations } from "./redis-indexes.js";
import type { StoreLocation } from "./store-url.js";
import type { KeyValueStore } from "./types.js";

const REDIS_CONNECT_TIMEOUT_MS = 2_000;
const REDIS_DEADLINE_MS = 2_000;
const REDIS_MAX_RECONNECT_DELAY_MS = 1_000;

export async function openRedis(location: Extract<StoreLocation, { kind: "redis" }>, logger: Logger): Promise<KeyValueStore> {
  const where = `Redis at ${location.host}:${location.port}/${location.database}`;
  // Loaded only for Redis: the client library is a third of a SQLite process's start time.
  const { default: KeyvRedis, createClient } = await import("@keyv/redis");
  const client = createClient({
    url: location.url,
    // Fail fast while disconnected instead of queueing commands until Redis returns. No per-command timeout:
    // guard() bounds every operation already, and the client's timeout costs a timer and an abort signal per command.
    disableOfflineQueue: true,
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
    throw new StoreUnavailableError(
      `cannot connect to ${where}: ${error instanceof DeadlineError ? lastError : reasonOf(error)}; check that Redis is running and STORE_URL is right`,
    );
  }
  const adapter = new KeyvRedis(client, { throwOnErrors: true, throwOnConnectError: true });
  const failed = `${where} failed`;
  // Made once: every operation's failure goes through it.
  const unavailable = (error: unknown): never => {
    throw asUnavailable(error, failed);
  };
  const backend: Backend = {
    keyv: newKeyv(adapter),
    description: where,
    async insertIfAbsent(key, serialized, ttlMs) {
      const reply = await client.set(
        key,
        serialized,
        ttlMs === undefined ? { condition: "NX" } : { condition: "NX", expiration: { type: "PX", value: ttlMs } },
      );
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
    async insertListedIfAbsent(listing, key, serialized, ttlMs) {
      // One MULTI: the member and the record are written together or not at all, in one round trip.
      const transaction = client.multi().sAdd(listing.set, listing.member);
      if (listing.ttlMs === undefined) transaction.persist(listing.set);
      else transaction.pExpire(listing.set, listing.ttlMs);
      transaction.set(
        key,
        serialized,
        ttlMs === undefined ? { condition: "NX" } : { condition: "NX", expiration: { type: "PX", value: ttlMs } },
      );
      const replies: unknown[] = await transaction.exec();
      return replies.at(-1) === "OK";
    },
    async removeMember(key, member) {
      await client.sRem(key, member);
    },
    async members(key) {
      return client.sMembers(key);
    },
    async rawMany(keys) {
      return (await client.mGet([...keys])).map((raw) => (typeof raw === "string" ? raw : undefined));
    },
    ...redisIndexOperations(client),
    guard<T>(operation: () => Promise<T>): Promise<T> {
      let running: Promise<T>;
      try {
        running = operation();
      } catch (error) {
        return Promise.reject(asUnavailable(error, failed));
      }
      return withinDeadline(running, REDIS_DEADLINE_MS, "waiting for Redis").catch(unavailable);
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
