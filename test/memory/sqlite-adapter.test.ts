import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Keyv } from "keyv";
import { SqliteAdapter } from "../../src/memory/sqlite-adapter.js";
import { temporaryFolder } from "../support/temporary-folder.js";

describe("SqliteAdapter (statements prepared once)", () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function adapter(): Promise<{ adapter: SqliteAdapter; path: string }> {
    const folder = await temporaryFolder();
    cleanups.push(() => folder.remove());
    const path = join(folder.path, "adapter.sqlite");
    const opened = new SqliteAdapter(path, "keyv", 1_000);
    cleanups.push(() => opened.close());
    return { adapter: opened, path };
  }

  it("gets, sets, deletes and says whether a delete found something, through keyv", async () => {
    const { adapter: store } = await adapter();
    const keyv = new Keyv(store, { useKeyPrefix: false, throwOnErrors: true });
    await keyv.set("a", { n: 1 });
    await keyv.set("a", { n: 2 });
    expect(await keyv.get("a")).toEqual({ n: 2 });
    expect(await keyv.get("missing")).toBeUndefined();
    expect(await keyv.delete("a")).toBe(true);
    expect(await keyv.delete("a")).toBe(false);
    expect(await store.has("a")).toBe(false);
  });

  it("answers many queries of the same statement at once, each with its own parameters", async () => {
    const { adapter: store } = await adapter();
    await Promise.all(Array.from({ length: 100 }, (_, index) => store.set(`k${index}`, `v${index}`)));
    const values = await Promise.all(Array.from({ length: 100 }, (_, index) => store.get(`k${index}`)));
    expect(values).toEqual(Array.from({ length: 100 }, (_, index) => `v${index}`));
    expect(await store.getMany(["k3", "nope", "k1"])).toEqual(["v3", undefined, "v1"]);
  });

  it("rejects a statement that can't be prepared, every time, instead of hanging", async () => {
    const { adapter: store } = await adapter();
    await expect(store.query("SELEC broken")).rejects.toThrow(/syntax error/);
    await expect(store.query("SELEC broken")).rejects.toThrow(/syntax error/);
    expect(await store.query("SELECT ? AS a", 1)).toEqual([{ a: 1 }]);
  });

  it("keeps working past the number of statements it keeps prepared", async () => {
    const { adapter: store } = await adapter();
    for (let index = 0; index < 80; index++) expect(await store.query(`SELECT ? AS a${index}`, index)).toEqual([{ [`a${index}`]: index }]);
  });

  it("closes with its statements prepared, and the data is there for the next opening", async () => {
    const { adapter: store, path } = await adapter();
    await store.set("kept", "yes");
    await store.close();
    const again = new SqliteAdapter(path, "keyv", 1_000);
    cleanups.push(() => again.close());
    expect(await again.get("kept")).toBe("yes");
  });

  it("reports a file it can't open on the first query", async () => {
    const folder = await temporaryFolder();
    cleanups.push(() => folder.remove());
    const broken = new SqliteAdapter(folder.path, "keyv", 1_000);
    await expect(broken.query("SELECT 1")).rejects.toThrow();
    await broken.close();
  });
});
