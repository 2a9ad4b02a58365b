// A short exclusive lease in the shared store, for work that several bot processes must not do
// at the same time (one conversation's run, the list of waiting approvals). Built on the
// store's atomic set-if-absent, so it holds across processes on one SQLite file or one Redis.
import { randomBytes } from "node:crypto";
import type { KeyValueStore } from "./types.js";

export interface StoreLease {
  /** Gives the lease up if it is still ours. Must not throw. */
  release(): Promise<void>;
}

const FIRST_RETRY_MS = 10;
const LONGEST_RETRY_MS = 200;

/**
 * Waits for the lease up to `waitMs`; resolves undefined if another holder kept it that long.
 * The lease ends by itself after `ttlMs`, so a process that died holding it blocks no one for long.
 * Rejects only when the store itself fails.
 */
export async function acquireLease(store: KeyValueStore, key: string, options: { ttlMs: number; waitMs: number }): Promise<StoreLease | undefined> {
  const token = randomBytes(9).toString("base64url");
  const giveUpAt = Date.now() + options.waitMs;
  let retryMs = FIRST_RETRY_MS;
  while (!(await store.setIfAbsent(key, token, options.ttlMs))) {
    if (Date.now() + retryMs > giveUpAt) return undefined;
    await new Promise((resolve) => setTimeout(resolve, retryMs));
    retryMs = Math.min(LONGEST_RETRY_MS, retryMs * 2);
  }
  return {
    async release() {
      try {
        if ((await store.get(key)) === token) await store.delete(key);
      } catch {
        // The lease ends with its TTL anyway.
      }
    },
  };
}
