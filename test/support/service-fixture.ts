// The life of the services one test file starts: a temporary folder for the file, a fresh SQLite
// store per service unless told otherwise, and every service closed after its test.
import { join } from "node:path";
import { afterAll, afterEach, beforeAll } from "vitest";
import { temporaryFolder } from "./memory-test-kit.js";
import { startService, type ServiceHarness } from "./service-harness.js";

type StartOptions = Parameters<typeof startService>[0];

export interface ServiceFixture {
  /** The file's temporary folder; exists while its tests run. */
  folder(): string;
  /** An SQLite store URL no other service of the file uses. */
  sqliteUrl(): string;
  /** A service on `storeUrl` (default: a fresh SQLite store), closed after the test. */
  start(options: Omit<StartOptions, "storeUrl"> & { readonly storeUrl?: string }): Promise<ServiceHarness>;
  /** Closes a service before the test ends, e.g. to start another on its store as after a restart. */
  stop(harness: ServiceHarness): Promise<void>;
}

/** Call at the top of a test file: registers the hooks that create and clean up. */
export function useServiceFixture(): ServiceFixture {
  let folder: Awaited<ReturnType<typeof temporaryFolder>> | undefined;
  let stores = 0;
  const open = new Set<ServiceHarness>();
  beforeAll(async () => {
    folder = await temporaryFolder();
  });
  afterEach(async () => {
    const closing = [...open].map((harness) => harness.close());
    open.clear();
    await Promise.all(closing);
  });
  afterAll(async () => {
    await folder?.remove();
  });

  const path = (): string => {
    if (!folder) throw new Error("the service fixture's folder exists only while its tests run");
    return folder.path;
  };
  const sqliteUrl = () => `sqlite://${join(path(), `store-${++stores}.sqlite`)}`;
  return {
    folder: path,
    sqliteUrl,
    async start(options) {
      const harness = await startService({ ...options, storeUrl: options.storeUrl ?? sqliteUrl() });
      open.add(harness);
      return harness;
    },
    async stop(harness) {
      open.delete(harness);
      await harness.close();
    },
  };
}
