// The store's ordered indexes, counter groups and batched reads, on SQLite and on a real Redis:
// the same answers from both, paging by cursor through ties, trimming, and read-only opening.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { StoreUnavailableError } from "../../src/errors.js";
import { silentLogger } from "../../src/logger.js";
import { openStore } from "../../src/memory/keyv-store.js";
import type { IndexHit, KeyValueStore } from "../../src/memory/types.js";
import { temporaryFolder } from "../support/temporary-folder.js";
import { storeBackends, useStore } from "../support/store-backends.js";

/** Every hit of an index, newest first, a page of `size` at a time through the cursor. */
async function walk(store: KeyValueStore, key: string, size: number, bounds: { min?: number; max?: number } = {}): Promise<IndexHit[]> {
  const all: IndexHit[] = [];
  let after: IndexHit | undefined;
  for (;;) {
    const page = await store.indexRange(key, { limit: size, ...bounds, ...(after ? { after } : {}) });
    all.push(...page);
    if (page.length < size) return all;
    after = page.at(-1);
  }
}

describe.each(storeBackends())("$name indexes and counters", (backend) => {
  const store = useStore(backend);

  it("orders members by score, highest first, and pages through ties without losing or repeating one", async () => {
    const entries = Array.from({ length: 23 }, (_, index) => ({
      key: "idx:a",
      member: `m${String(index).padStart(2, "0")}`,
      score: Math.floor(index / 4),
    }));
    await store().addToIndex(entries);
    const expected = [...entries]
      .sort((a, b) => b.score - a.score || (a.member < b.member ? 1 : -1))
      .map(({ member, score }) => ({ member, score }));
    expect(await store().indexRange("idx:a", { limit: 100 })).toEqual(expected);
    for (const size of [1, 3, 4, 5, 22]) expect(await walk(store(), "idx:a", size)).toEqual(expected);
    expect(await walk(store(), "idx:a", 2, { min: 2, max: 3 })).toEqual(expected.filter((hit) => hit.score >= 2 && hit.score <= 3));
    expect(await store().indexRange("idx:a", { limit: 3, order: "asc" })).toEqual(expected.slice(-3).reverse());
    expect(await store().indexSize("idx:a")).toBe(23);
  });

  it("moves a member that is added again, removes members, and trims below a score", async () => {
    await store().addToIndex([
      { key: "idx:b", member: "x", score: 10 },
      { key: "idx:b", member: "y", score: 20 },
      { key: "idx:c", member: "x", score: 5 },
    ]);
    await store().addToIndex([{ key: "idx:b", member: "x", score: 30 }]);
    expect(await store().indexRange("idx:b", { limit: 10 })).toEqual([
      { member: "x", score: 30 },
      { member: "y", score: 20 },
    ]);
    await store().removeFromIndex("idx:b", ["y", "absent"]);
    expect(await store().indexRange("idx:b", { limit: 10 })).toEqual([{ member: "x", score: 30 }]);
    await store().addToIndex([1, 2, 3, 4].map((score) => ({ key: "idx:d", member: `t${score}`, score: score * 1_700_000_000_000 })));
    expect(await store().trimIndex("idx:d", 3 * 1_700_000_000_000)).toBe(2);
    expect((await store().indexRange("idx:d", { limit: 10 })).map((hit) => hit.member)).toEqual(["t4", "t3"]);
    expect(await store().indexRange("idx:none", { limit: 10 })).toEqual([]);
    expect(await store().indexSize("idx:none")).toBe(0);
    await expect(store().addToIndex([{ key: "idx:b", member: "z", score: Number.NaN }])).rejects.toThrow(RangeError);
  });

  it("adds to counter groups atomically and reads them back; a group lives its TTL from the first add", async () => {
    await Promise.all(Array.from({ length: 20 }, () => store().incrementFields("cnt:a", { in: 3, out: 1 }, 60_000)));
    await store().incrementFields("cnt:a", { cached: 7 }, 60_000);
    expect(await store().counterFields("cnt:a")).toEqual({ in: 60, out: 20, cached: 7 });
    expect(await store().counterFields("cnt:none")).toEqual({});
    await store().incrementFields("cnt:short", { in: 1 }, 30);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(await store().counterFields("cnt:short")).toEqual({});
    await store().incrementFields("cnt:short", { in: 2 }, 60_000);
    expect(await store().counterFields("cnt:short")).toEqual({ in: 2 });
    await expect(store().incrementFields("cnt:a", { in: 0.5 }, 60_000)).rejects.toThrow(RangeError);
  });

  it("deletes some counters of a group; the others keep counting in the same window", async () => {
    await store().incrementFields("cnt:del", { "w:T1": 4, "w:T2": 5, "*": 9 }, 60_000);
    await store().deleteCounterFields("cnt:del", ["w:T1", "w:absent"]);
    await store().deleteCounterFields("cnt:del", []);
    expect(await store().counterFields("cnt:del")).toEqual({ "w:T2": 5, "*": 9 });
    await store().incrementFields("cnt:del", { "*": 1, "w:T1": 2 }, 60_000);
    expect(await store().counterFields("cnt:del")).toEqual({ "w:T1": 2, "w:T2": 5, "*": 10 });
    await store().deleteCounterFields("cnt:none", ["w:T1"]);
  });

  it("reads several values in one call, in the order asked, without what expired", async () => {
    await store().set("many:a", { a: 1 });
    await store().set("many:b", "two");
    await store().set("many:gone", 1, 20);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await store().getMany(["many:b", "many:missing", "many:a", "many:gone"])).toEqual(["two", undefined, { a: 1 }, undefined]);
    expect(await store().getMany([])).toEqual([]);
  });
});

describe("an SQLite store opened read-only", () => {
  it("reads what the owner wrote, creates nothing and refuses writes", async () => {
    const folder = await temporaryFolder();
    try {
      const url = `sqlite://${join(folder.path, "bot.sqlite")}`;
      await expect(openStore(`sqlite://${join(folder.path, "missing.sqlite")}`, silentLogger, { readOnly: true })).rejects.toThrow(
        StoreUnavailableError,
      );
      const owner = await openStore(url, silentLogger);
      await owner.set("k", "v");
      await owner.addToIndex([{ key: "idx", member: "m", score: 1 }]);
      const reader = await openStore(url, silentLogger, { readOnly: true });
      expect(await reader.get("k")).toBe("v");
      expect(await reader.indexRange("idx", { limit: 5 })).toEqual([{ member: "m", score: 1 }]);
      await expect(reader.set("k", "changed")).rejects.toThrow(StoreUnavailableError);
      await owner.set("k2", "later");
      expect(await reader.get("k2")).toBe("later");
      await reader.close();
      await owner.close();
    } finally {
      await folder.remove();
    }
  });
});
