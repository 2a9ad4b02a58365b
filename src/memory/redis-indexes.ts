// The Redis side of the ordered indexes (sorted sets) and the counter groups (hashes): each
// operation one round trip, the multi-key ones as one script so they are also atomic.
import type { Backend } from "./store-backend.js";
import type { IndexHit } from "./types.js";

/** What the index operations need of the node-redis client. */
export interface RedisCommands {
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  sendCommand(args: string[]): Promise<unknown>;
}

type IndexOperations = Pick<
  Backend,
  "addIndexed" | "removeIndexed" | "rangeIndexed" | "sizeIndexed" | "trimIndexed" | "incrementFieldsBy" | "fieldsOf" | "deleteFields"
>;

/** ZADD for each (key, score, member) triple of ARGV. */
const ADD_SCRIPT = `for i = 1, #ARGV, 3 do redis.call('ZADD', ARGV[i], ARGV[i + 1], ARGV[i + 2]) end
return #ARGV / 3`;

/** Highest first from ARGV[1] down to ARGV[2]; with a cursor (ARGV[4] = '1') also the members tied with its score, dropped by the caller. */
const RANGE_SCRIPT = `local extra = 0
if ARGV[4] == '1' then extra = redis.call('ZCOUNT', KEYS[1], ARGV[1], ARGV[1]) end
return redis.call('ZRANGE', KEYS[1], ARGV[1], ARGV[2], 'BYSCORE', 'REV', 'LIMIT', 0, tonumber(ARGV[3]) + extra, 'WITHSCORES')`;

/** HINCRBY for each (field, amount) pair of ARGV; the first add sets the group's expiry (ARGV[1]). */
const INCREMENT_FIELDS_SCRIPT = `for i = 2, #ARGV, 2 do redis.call('HINCRBY', KEYS[1], ARGV[i], ARGV[i + 1]) end
if redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return 1`;

const bound = (score: number): string =>
  score === Number.POSITIVE_INFINITY ? "+inf" : score === Number.NEGATIVE_INFINITY ? "-inf" : String(score);

/** The flat [member, score, member, score…] reply of ZRANGE … WITHSCORES. */
function hitsOf(reply: unknown): IndexHit[] {
  const flat = Array.isArray(reply) ? reply.map(String) : [];
  const hits: IndexHit[] = [];
  for (let index = 0; index + 1 < flat.length; index += 2) hits.push({ member: flat[index]!, score: Number(flat[index + 1]) });
  return hits;
}

/** Redis orders members of one score by their bytes; so does this. */
const byteOrder = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

export function redisIndexOperations(client: RedisCommands): IndexOperations {
  return {
    async addIndexed(entries) {
      await client.eval(ADD_SCRIPT, { keys: [], arguments: entries.flatMap((entry) => [entry.key, String(entry.score), entry.member]) });
    },
    async removeIndexed(key, members) {
      await client.sendCommand(["ZREM", key, ...members]);
    },
    async rangeIndexed(key, range) {
      if (range.limit === 0) return [];
      if (range.order === "asc") {
        return hitsOf(
          await client.sendCommand([
            "ZRANGE",
            key,
            bound(range.min),
            bound(range.max),
            "BYSCORE",
            "LIMIT",
            "0",
            String(range.limit),
            "WITHSCORES",
          ]),
        );
      }
      const after = range.after && range.after.score <= range.max ? range.after : undefined;
      const max = after ? after.score : range.max;
      const reply = await client.eval(RANGE_SCRIPT, {
        keys: [key],
        arguments: [bound(max), bound(range.min), String(range.limit), after ? "1" : "0"],
      });
      const hits = hitsOf(reply).filter((hit) => !after || hit.score < after.score || byteOrder(hit.member, after.member) < 0);
      return hits.slice(0, range.limit);
    },
    async sizeIndexed(key) {
      return Number(await client.sendCommand(["ZCARD", key]));
    },
    async trimIndexed(key, score) {
      return Number(await client.sendCommand(["ZREMRANGEBYSCORE", key, "-inf", `(${bound(score)}`]));
    },
    async incrementFieldsBy(key, by, ttlMs) {
      await client.eval(INCREMENT_FIELDS_SCRIPT, {
        keys: [key],
        arguments: [String(ttlMs), ...Object.entries(by).flatMap(([field, amount]) => [field, String(amount)])],
      });
    },
    async fieldsOf(key) {
      const reply = await client.sendCommand(["HGETALL", key]);
      // RESP3 answers a map, RESP2 a flat list.
      if (reply !== null && typeof reply === "object" && !Array.isArray(reply))
        return Object.fromEntries(Object.entries(reply).map(([field, value]) => [field, Number(value)]));
      const flat = Array.isArray(reply) ? reply.map(String) : [];
      const fields: Record<string, number> = {};
      for (let index = 0; index + 1 < flat.length; index += 2) fields[flat[index]!] = Number(flat[index + 1]);
      return fields;
    },
    async deleteFields(key, fields) {
      await client.sendCommand(["HDEL", key, ...fields]);
    },
  };
}
