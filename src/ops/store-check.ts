// The store's readiness check: a write and a read of this process's own probe key, answered
// within a second. For the SQLite file also that it is still there and writable: an open
// connection keeps writing to a file that was deleted or made read-only, and that work is lost.
import { randomBytes } from "node:crypto";
import { access, constants, stat } from "node:fs/promises";
import type { KeyValueStore } from "../memory/types.js";
import { failing, OK, type CheckResult } from "./readiness.js";

export const STORE_CHECK_TIMEOUT_MS = 1_000;
const PROBE_TTL_MS = 60_000;

export interface StoreCheckOptions {
  /** The SQLite file behind the store, when it is one. */
  readonly sqlitePath?: string;
  readonly timeoutMs?: number;
}

/** Concurrent callers share one probe in flight. Never rejects. */
export function createStoreCheck(store: KeyValueStore, options: StoreCheckOptions = {}): () => Promise<CheckResult> {
  const key = `ops:readiness:${randomBytes(6).toString("base64url")}`;
  const timeoutMs = options.timeoutMs ?? STORE_CHECK_TIMEOUT_MS;
  let inFlight: Promise<CheckResult> | undefined;

  async function probe(): Promise<CheckResult> {
    if (options.sqlitePath) {
      const file = await sqliteFileProblem(options.sqlitePath);
      if (file) return failing(file);
    }
    const nonce = randomBytes(6).toString("base64url");
    await store.set(key, nonce, PROBE_TTL_MS);
    const read = await store.get(key);
    return read === nonce ? OK : failing("the store returned something else than was just written");
  }

  return () =>
    (inFlight ??= withTimeout(probe(), timeoutMs)
      .catch((error: unknown) => failing(error instanceof Error ? error.message : String(error)))
      .finally(() => {
        inFlight = undefined;
      }));
}

/** Running as root ignores permission bits, so a file with no write bit at all counts as read-only too. */
async function sqliteFileProblem(path: string): Promise<string | undefined> {
  try {
    const info = await stat(path);
    if ((info.mode & 0o222) === 0) return `${path} is read-only`;
    await access(path, constants.W_OK);
    return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return `${path} is gone`;
    if (code === "EACCES" || code === "EPERM" || code === "EROFS") return `${path} is read-only`;
    return `${path}: ${error instanceof Error ? error.message : String(error)}`;
  }
}

function withTimeout(work: Promise<CheckResult>, timeoutMs: number): Promise<CheckResult> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<CheckResult>((resolve) => {
    timer = setTimeout(() => resolve(failing(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  // A probe still hanging when the timeout answered must not surface as an unhandled rejection later.
  work.catch(() => {});
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
