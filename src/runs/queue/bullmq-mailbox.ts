// Per-conversation mailboxes in Redis: a list of items per conversation and an owner key that
// names the one drain job (by generation) allowed to take items from it. Each decision is one
// Lua script, so an item pushed while the owner finds its mailbox empty is never stranded:
// either the owner sees it, or the push finds no owner and starts a new generation.
import type { Redis } from "ioredis";
import { counterKeys, hashOfOwnerKey, mailboxKeys, ownerPattern } from "./bullmq-codec.js";

/** Appends; returns the generation that owns the mailbox (the proposed one when it had no owner). */
const PUSH = `
redis.call('RPUSH', KEYS[1], ARGV[1])
redis.call('INCR', KEYS[3])
local owner = redis.call('GET', KEYS[2])
if not owner then
  owner = ARGV[2]
  redis.call('SET', KEYS[2], owner)
end
return owner`;

/** The owner's next item; an empty mailbox releases the owner in the same step. */
const NEXT = `
if redis.call('GET', KEYS[2]) ~= ARGV[1] then return {'lost'} end
local head = redis.call('LINDEX', KEYS[1], 0)
if not head then
  redis.call('DEL', KEYS[2])
  return {'empty'}
end
return {'item', head}`;

/** Removes the head only if it is still the item that was handled. */
const POP = `
if redis.call('LINDEX', KEYS[1], 0) == ARGV[1] then
  redis.call('LPOP', KEYS[1])
  redis.call('DECR', KEYS[2])
  return 1
end
return 0`;

/** Hands the mailbox to a new generation when the owning one is gone (its job failed or vanished). */
const ROTATE = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return false end
redis.call('SET', KEYS[1], ARGV[2])
return ARGV[2]`;

export type NextItem = { readonly kind: "item"; readonly raw: string } | { readonly kind: "empty" } | { readonly kind: "lost" };

export interface Mailboxes {
  /** Appends `raw`; a mailbox without an owner gets `proposed` (a fresh generation). Resolves with the owning generation. */
  push(hash: string, raw: string, proposed: string): Promise<string>;
  next(hash: string, generation: string): Promise<NextItem>;
  pop(hash: string, raw: string): Promise<boolean>;
  /** Hands the mailbox to `next`; false when `generation` no longer owns it. */
  rotate(hash: string, generation: string, next: string): Promise<boolean>;
  /** Items in every mailbox (waiting or being handled). */
  count(): Promise<number>;
  /** Every mailbox that has an owner, with the owning generation. */
  owners(): Promise<Array<{ readonly hash: string; readonly generation: string }>>;
}

export function createMailboxes(redis: Redis, prefix: string): Mailboxes {
  const counters = counterKeys(prefix);
  return {
    async push(hash, raw, proposed) {
      const keys = mailboxKeys(prefix, hash);
      return String(await redis.eval(PUSH, 3, keys.mailbox, keys.owner, counters.items, raw, proposed));
    },
    async next(hash, generation) {
      const keys = mailboxKeys(prefix, hash);
      const [kind, raw] = (await redis.eval(NEXT, 2, keys.mailbox, keys.owner, generation)) as [string, string?];
      if (kind === "item" && raw !== undefined) return { kind: "item", raw };
      return kind === "empty" ? { kind: "empty" } : { kind: "lost" };
    },
    async pop(hash, raw) {
      const keys = mailboxKeys(prefix, hash);
      return (await redis.eval(POP, 2, keys.mailbox, counters.items, raw)) === 1;
    },
    async rotate(hash, generation, next) {
      const keys = mailboxKeys(prefix, hash);
      return (await redis.eval(ROTATE, 1, keys.owner, generation, next)) === next;
    },
    async count() {
      return Math.max(0, Number((await redis.get(counters.items)) ?? 0));
    },
    async owners() {
      const found: Array<{ hash: string; generation: string }> = [];
      let cursor = "0";
      do {
        const [nextCursor, keys] = await redis.scan(cursor, "MATCH", ownerPattern(prefix), "COUNT", 500);
        cursor = nextCursor;
        const generations = keys.length > 0 ? await redis.mget(...keys) : [];
        keys.forEach((key, index) => {
          const generation = generations[index];
          if (generation) found.push({ hash: hashOfOwnerKey(prefix, key), generation });
        });
      } while (cursor !== "0");
      return found;
    },
  };
}
