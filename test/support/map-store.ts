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
    close: async () => undefined,
  };
}
