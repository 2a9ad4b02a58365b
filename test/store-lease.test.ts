import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../src/logger.js";
import { openStore } from "../src/memory/keyv-store.js";
import { acquireLease } from "../src/memory/store-lease.js";
import type { KeyValueStore } from "../src/memory/types.js";
import { temporaryFolder } from "./support/memory-test-kit.js";

let folder: Awaited<ReturnType<typeof temporaryFolder>>;
let first: KeyValueStore;
let second: KeyValueStore;

beforeAll(async () => {
  folder = await temporaryFolder();
  // Two connections to one file stand for two bot processes.
  first = await openStore(`sqlite://${folder.path}/lease.sqlite`, silentLogger);
  second = await openStore(`sqlite://${folder.path}/lease.sqlite`, silentLogger);
});
afterAll(async () => {
  await first.close();
  await second.close();
  await folder.remove();
});

describe("store leases", () => {
  it("lets one holder in at a time across connections, in turn", async () => {
    const order: string[] = [];
    const work = async (store: KeyValueStore, name: string) => {
      const lease = await acquireLease(store, "lease:a", { ttlMs: 5_000, waitMs: 5_000 });
      expect(lease).toBeDefined();
      order.push(`${name} in`);
      await new Promise((resolve) => setTimeout(resolve, 20));
      order.push(`${name} out`);
      await lease!.release();
    };
    await Promise.all([work(first, "one"), work(second, "two"), work(first, "three")]);
    for (let index = 0; index < order.length; index += 2) expect(order[index + 1]).toBe(order[index]!.replace(" in", " out"));
  });

  it("gives up after waitMs while someone else holds it", async () => {
    const held = await acquireLease(first, "lease:b", { ttlMs: 5_000, waitMs: 100 });
    expect(await acquireLease(second, "lease:b", { ttlMs: 5_000, waitMs: 50 })).toBeUndefined();
    await held!.release();
    const next = await acquireLease(second, "lease:b", { ttlMs: 5_000, waitMs: 50 });
    expect(next).toBeDefined();
    await next!.release();
  });

  it("ends by itself after its TTL, so a dead holder blocks no one for long", async () => {
    await acquireLease(first, "lease:c", { ttlMs: 50, waitMs: 10 });
    const taken = await acquireLease(second, "lease:c", { ttlMs: 5_000, waitMs: 2_000 });
    expect(taken).toBeDefined();
  });

  it("release does not drop a lease someone else holds now", async () => {
    const stale = await acquireLease(first, "lease:d", { ttlMs: 30, waitMs: 10 });
    const fresh = await acquireLease(second, "lease:d", { ttlMs: 5_000, waitMs: 2_000 });
    await stale!.release();
    expect(await acquireLease(first, "lease:d", { ttlMs: 5_000, waitMs: 30 })).toBeUndefined();
    await fresh!.release();
  });
});
