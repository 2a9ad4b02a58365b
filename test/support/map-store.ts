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
  const indexes = new Map<string, Map<string, number>>();
  const counters = new Map<string, Record<string, number>>();
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
    getMany: async (keys) => keys.map((key) => data.get(key)),
    addToIndex: async (entries) => {
      for (const entry of entries) indexes.set(entry.key, (indexes.get(entry.key) ?? new Map()).set(entry.member, entry.score));
    },
    removeFromIndex: async (key, members) => {
      for (const member of members) indexes.get(key)?.delete(member);
    },
    indexRange: async (key, range) => {
      const hits = [...(indexes.get(key) ?? new Map<string, number>())]
        .map(([member, score]) => ({ member, score }))
        .filter((hit) => hit.score >= (range.min ?? -Infinity) && hit.score <= (range.max ?? Infinity))
        .sort((a, b) => a.score - b.score || (a.member < b.member ? -1 : a.member > b.member ? 1 : 0));
      if (range.order === "asc") return hits.slice(0, range.limit);
      const after = range.after;
      return hits
        .reverse()
        .filter((hit) => !after || hit.score < after.score || (hit.score === after.score && hit.member < after.member))
        .slice(0, range.limit);
    },
    indexSize: async (key) => indexes.get(key)?.size ?? 0,
    trimIndex: async (key, score) => {
      let removed = 0;
      for (const [member, at] of indexes.get(key) ?? []) if (at < score && indexes.get(key)!.delete(member)) removed += 1;
      return removed;
    },
    incrementFields: async (key, by) => {
      const fields = counters.get(key) ?? {};
      for (const [field, amount] of Object.entries(by)) fields[field] = (fields[field] ?? 0) + amount;
      counters.set(key, fields);
    },
    counterFields: async (key) => ({ ...counters.get(key) }),
    deleteCounterFields: async (key, fields) => {
      for (const field of fields) delete counters.get(key)?.[field];
    },
    close: async () => undefined,
  };
}
