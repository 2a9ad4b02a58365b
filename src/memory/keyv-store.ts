// The store seam's one implementation: keyv inside, chosen by STORE_URL. SQLite (a file,
// the embedded default, sqlite-backend.ts) or Redis (several bot processes, redis-backend.ts).
// Every failure of the backend surfaces as StoreUnavailableError.
import type { Logger } from "../logger.js";
import { openRedis } from "./redis-backend.js";
import { openSqlite } from "./sqlite-backend.js";
import { parseStoreUrl } from "./store-url.js";
import type { KeyValueStore } from "./types.js";

export { parseStoreUrl, type StoreLocation } from "./store-url.js";

/**
 * Opens the store named by `url` and checks that it works: throws StoreUrlError for a URL
 * it can't use and StoreUnavailableError when the store can't be opened. `readOnly` (a tool
 * beside a live bot, e.g. replay): an SQLite file is opened for reading only and nothing is
 * created or swept; the caller writes nothing to either backend.
 */
export async function openStore(url: string, logger: Logger, options: { readonly readOnly?: boolean } = {}): Promise<KeyValueStore> {
  const location = parseStoreUrl(url);
  return location.kind === "sqlite" ? openSqlite(location.path, logger, options.readOnly) : openRedis(location, logger);
}
