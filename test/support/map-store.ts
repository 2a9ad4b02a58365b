// An in-memory KeyValueStore that keeps the TTL each key was written with, for unit tests.
import type { KeyValueStore } from "../../src/memory/types.js";

export function mapStore(): KeyValueStore & { data: Map<string, unknown>; ttls: Map<string, number | undefined> } {
  const data = new Map<string, unknown>();
  const ttls = new Map<string, number | undefined>();
  return {
    data,
    ttls,
    get: async (key) => data.get(key),
    set: async (key, value, ttl) => void (data.set(key, value), ttls.set(key, ttl)),
    delete: async (key) => data.delete(key),
    setIfAbsent: async (key, value) => (data.has(key) ? false : (data.set(key, value), true)),
    increment: async (key, by, ttl) => {
      const total = (typeof data.get(key) === "number" ? (data.get(key) as number) : 0) + by;
      if (!data.has(key)) ttls.set(key, ttl);
      data.set(key, total);
      return total;
    },
    close: async () => undefined,
  };
}
