// An in-memory KeyValueStore that keeps the TTL each key was written with, for unit tests.
import type { KeyValueStore } from "../../src/memory/types.js";

export function mapStore(): KeyValueStore & {
  data: Map<string, unknown>;
  ttls: Map<string, number | undefined>;
  sets: Map<string, Set<string>>;
} {
  const data = new Map<string, unknown>();
  const sets = new Map<string, Set<string>>();
  const ttls = new Map<string, number | undefined>();
  return {
    data,
    ttls,
    sets,
    get: async (key) => data.get(key),
    set: async (key, value, ttl) => {
      data.set(key, value);
      ttls.set(key, ttl);
    },
    delete: async (key) => data.delete(key),
    setIfAbsent: async (key, value) => {
      if (data.has(key)) return false;
      data.set(key, value);
      return true;
    },
    setIfAbsentListed: async (entry, listing) => {
      sets.set(listing.set, (sets.get(listing.set) ?? new Set<string>()).add(listing.member));
      if (data.has(entry.key)) return false;
      data.set(entry.key, entry.value);
      ttls.set(entry.key, entry.ttlMs);
      return true;
    },
    increment: async (key, by, ttl) => {
      const total = (typeof data.get(key) === "number" ? (data.get(key) as number) : 0) + by;
      if (!data.has(key)) ttls.set(key, ttl);
      data.set(key, total);
      return total;
    },
    addToSet: async (key, member) => void sets.set(key, (sets.get(key) ?? new Set<string>()).add(member)),
    removeFromSet: async (key, member) => void sets.get(key)?.delete(member),
    setMembers: async (key) => [...(sets.get(key) ?? [])],
    close: async () => undefined,
  };
}
