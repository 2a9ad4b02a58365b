// The two store backends a store test runs on: SQLite (a file in a temporary folder) and a real
// Redis (its own redis-server, started on first use), the second only where redis-server is
// installed (see redis-suite.ts). Each `url()` is a fresh, empty store of that backend.
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { silentLogger } from "../../src/logger.js";
import { openStore } from "../../src/memory/keyv-store.js";
import type { KeyValueStore } from "../../src/memory/types.js";
import { startRedisServer, type RedisServer } from "./redis-server.js";
import { redisAvailable } from "./redis-suite.js";
import { temporaryFolder, type TemporaryFolder } from "./temporary-folder.js";

export interface StoreBackend {
  readonly name: "SQLite" | "Redis";
  /** A URL for a fresh, empty store. */
  url(): Promise<string>;
  /** Removes the folder or stops the server. */
  stop(): Promise<void>;
}

function sqliteBackend(): StoreBackend {
  let folder: TemporaryFolder | undefined;
  let count = 0;
  return {
    name: "SQLite",
    async url() {
      folder ??= await temporaryFolder();
      count += 1;
      return `sqlite://${join(folder.path, `store-${count}.sqlite`)}`;
    },
    stop: async () => folder?.remove(),
  };
}

function redisBackend(): StoreBackend {
  let server: RedisServer | undefined;
  let database = 0;
  return {
    name: "Redis",
    async url() {
      server ??= await startRedisServer();
      database += 1;
      return `${server.url}/${database}`;
    },
    stop: async () => server?.stop(),
  };
}

/** For `describe.each(storeBackends())("$name …", (backend) => …)`. */
export function storeBackends(): StoreBackend[] {
  return [sqliteBackend(), ...(redisAvailable ? [redisBackend()] : [])];
}

/** Inside a describe over `backend`: a client of one fresh store, open for its tests (call it in a test); then the backend stops. */
export function useStore(backend: StoreBackend): () => KeyValueStore {
  let opened: KeyValueStore | undefined;
  beforeAll(async () => {
    opened = await openStore(await backend.url(), silentLogger);
  });
  afterAll(async () => {
    await opened?.close();
    await backend.stop();
  });
  return () => {
    if (!opened) throw new Error("the store is open only while the block's tests run");
    return opened;
  };
}

export interface StoreClients {
  readonly first: KeyValueStore;
  /** Another client of the same store, as a second bot process holds it. */
  readonly second: KeyValueStore;
}

/** Inside a describe over `backend`: two clients of one fresh store, open for its tests; then the backend stops. */
export function useStoreClients(backend: StoreBackend): StoreClients {
  let opened: StoreClients | undefined;
  beforeAll(async () => {
    const url = await backend.url();
    opened = { first: await openStore(url, silentLogger), second: await openStore(url, silentLogger) };
  });
  afterAll(async () => {
    await opened?.first.close();
    await opened?.second.close();
    await backend.stop();
  });
  const client = (which: keyof StoreClients): KeyValueStore => {
    if (!opened) throw new Error("the store's clients are open only while the block's tests run");
    return opened[which];
  };
  return {
    get first() {
      return client("first");
    },
    get second() {
      return client("second");
    },
  };
}
