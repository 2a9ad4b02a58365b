import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger, type Logger } from "../../src/logger.js";
import { decideFactWrite } from "../../src/memory/fact-similarity.js";
import { openStore } from "../../src/memory/keyv-store.js";
import { createLongTermMemory, encodeFacts, factsKey } from "../../src/memory/long-term-memory.js";
import type { Fact, KeyValueStore } from "../../src/memory/types.js";
import { capturingLogger } from "../support/capturing-logger.js";
import { temporaryFolder } from "../support/temporary-folder.js";

let folder: Awaited<ReturnType<typeof temporaryFolder>>;
let store: KeyValueStore;
let conversations = 0;

beforeAll(async () => {
  folder = await temporaryFolder();
  store = await openStore(`sqlite://${join(folder.path, "facts.sqlite")}`, silentLogger);
});
afterAll(async () => {
  await store.close();
  await folder.remove();
});

function conversation(): string {
  conversations += 1;
  return `slack:T1:C1:${conversations}`;
}

/** A clock that moves one millisecond per reading, so "older" is always well defined. */
function steppingClock(start = 1_000): () => number {
  let now = start;
  return () => (now += 1);
}

function memory(options: { maxFacts?: number; logger?: Logger; clock?: () => number } = {}) {
  return createLongTermMemory(store, {
    maxFacts: options.maxFacts ?? 200,
    logger: options.logger ?? silentLogger,
    clock: options.clock ?? steppingClock(),
  });
}

/** `count` made-up facts that are all distinct from each other by the dedupe rule. */
function distinctFacts(count: number): string[] {
  let seed = 7;
  const letter = (): string => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return String.fromCharCode(97 + (seed % 26));
  };
  const facts: Fact[] = [];
  while (facts.length < count) {
    const text = Array.from({ length: 4 }, () => Array.from({ length: 6 }, letter).join("")).join(" ");
    if (decideFactWrite(facts, text).kind === "add") facts.push({ id: String(facts.length), text, createdAt: 0, lastUsedAt: 0, uses: 0 });
  }
  return facts.map((fact) => fact.text);
}

const texts = (facts: readonly Fact[]): string[] => facts.map((fact) => fact.text);

describe("long-term memory", () => {
  it("adds new facts and lists them oldest first", async () => {
    const key = conversation();
    const facts = memory();
    expect(await facts.remember(key, ["User's name is Ann", "User works at Acme"])).toEqual({ added: 2, replaced: 0, skipped: 0 });
    expect(await facts.remember(key, ["User lives in Berlin"])).toEqual({ added: 1, replaced: 0, skipped: 0 });
    const listed = await facts.list(key);
    expect(texts(listed)).toEqual(["User's name is Ann", "User works at Acme", "User lives in Berlin"]);
    expect(listed.every((fact) => fact.uses === 0 && fact.id !== "")).toBe(true);
  });

  it("skips duplicates and replaces near duplicates, keeping the fact's id", async () => {
    const key = conversation();
    const facts = memory();
    await facts.remember(key, ["User prefers dark mode", "用户喜欢喝咖啡"]);
    const [darkMode, coffee] = await facts.list(key);
    const result = await facts.remember(key, ["user prefers DARK mode!", "The user prefers dark mode.", "用户很喜欢喝咖啡", "  ", ""]);
    expect(result).toEqual({ added: 0, replaced: 2, skipped: 1 });
    const listed = await facts.list(key);
    expect(listed).toHaveLength(2);
    expect(listed.find((fact) => fact.id === darkMode?.id)?.text).toBe("The user prefers dark mode.");
    expect(listed.find((fact) => fact.id === coffee?.id)?.text).toBe("用户很喜欢喝咖啡");
  });

  it("recalls the most relevant facts first and counts only the relevant ones as used", async () => {
    const key = conversation();
    const facts = memory();
    await facts.remember(key, ["User lives in Berlin", "User works at Acme", "User drinks green tea", "Project Atlas ships in May"]);
    const recalled = await facts.recall(key, "When does project Atlas ship?", 2);
    expect(recalled).toHaveLength(2);
    expect(recalled[0]?.text).toBe("Project Atlas ships in May");
    expect(recalled[0]?.uses).toBe(1);
    const listed = await facts.list(key);
    const atlas = listed.find((fact) => fact.text === "Project Atlas ships in May");
    expect(atlas?.uses).toBe(1);
    expect(atlas?.lastUsedAt).toBeGreaterThan(atlas?.createdAt ?? Number.POSITIVE_INFINITY);
    // The second recalled fact only filled the list: it is not counted as used.
    expect(recalled[1]?.uses).toBe(0);
    expect(listed.filter((fact) => fact.uses === 0)).toHaveLength(3);
  });

  it("marks nothing as used when no fact is related to the message", async () => {
    const key = conversation();
    let now = 1_000;
    const facts = memory({ clock: () => now });
    await facts.remember(key, ["User lives in Berlin", "Project Atlas ships in May"]);
    now = 2_000;
    const recalled = await facts.recall(key, "zzz qqq", 8);
    expect(recalled).toHaveLength(2);
    expect((await facts.list(key)).map((fact) => [fact.uses, fact.lastUsedAt])).toEqual([
      [0, 1_000],
      [0, 1_000],
    ]);
  });

  it("recalls nothing from an empty conversation", async () => {
    expect(await memory().recall(conversation(), "anything", 8)).toEqual([]);
  });

  it("evicts the least used facts, oldest first, when over the cap", async () => {
    const key = conversation();
    const facts = memory({ maxFacts: 3 });
    await facts.remember(key, ["User lives in Berlin", "User works at Acme", "User drinks green tea"]);
    await facts.recall(key, "Where does the user live? Berlin", 1);
    await facts.remember(key, ["Project Atlas ships in May"]);
    expect(texts(await facts.list(key))).toEqual(["User lives in Berlin", "User drinks green tea", "Project Atlas ships in May"]);
    await facts.remember(key, ["Deploys happen on Fridays", "The team uses Postgres"]);
    expect(texts(await facts.list(key))).toEqual(["User lives in Berlin", "Deploys happen on Fridays", "The team uses Postgres"]);
  });

  it("keeps the newest facts when one write brings more than the cap", async () => {
    const key = conversation();
    const facts = memory({ maxFacts: 2 });
    const incoming = distinctFacts(3);
    expect(await facts.remember(key, incoming)).toEqual({ added: 3, replaced: 0, skipped: 0 });
    expect(texts(await facts.list(key))).toEqual(incoming.slice(1));
  });

  it("forgets everything of one conversation and says how much", async () => {
    const [key, other] = [conversation(), conversation()];
    const facts = memory();
    await facts.remember(key, ["User lives in Berlin", "User works at Acme"]);
    await facts.remember(other, ["User drinks green tea"]);
    expect(await facts.forget(key)).toBe(2);
    expect(await facts.list(key)).toEqual([]);
    expect(await facts.forget(key)).toBe(0);
    expect(texts(await facts.list(other))).toEqual(["User drinks green tea"]);
  });

  it("loses and duplicates nothing when 100 writes to one conversation run concurrently", async () => {
    const key = conversation();
    const facts = memory();
    const unique = distinctFacts(100);
    const results = await Promise.all(unique.map((text) => facts.remember(key, ["User prefers dark mode", text])));
    const totals = results.reduce((sum, r) => ({
      added: sum.added + r.added,
      replaced: sum.replaced + r.replaced,
      skipped: sum.skipped + r.skipped,
    }));
    expect(totals).toEqual({ added: 101, replaced: 0, skipped: 99 });
    const listed = await facts.list(key);
    expect(listed).toHaveLength(101);
    expect(new Set(texts(listed))).toEqual(new Set(["User prefers dark mode", ...unique]));
    expect(new Set(listed.map((fact) => fact.id)).size).toBe(101);
  });

  it("sees what another instance on the same store wrote (no stale cache)", async () => {
    const key = conversation();
    const [first, second] = [memory(), memory()];
    await first.remember(key, ["User lives in Berlin"]);
    expect(texts(await second.list(key))).toEqual(["User lives in Berlin"]);
    await second.remember(key, ["User works at Acme"]);
    expect(texts(await first.list(key))).toEqual(["User lives in Berlin", "User works at Acme"]);
    await second.forget(key);
    expect(await first.list(key)).toEqual([]);
  });

  it("skips a corrupted stored fact with a warning and keeps the good ones", async () => {
    const key = conversation();
    const { logger, warnings } = capturingLogger();
    const good: Fact = { id: "good", text: "User lives in Berlin", createdAt: 1, lastUsedAt: 1, uses: 0 };
    const stored = JSON.parse(encodeFacts([good])) as unknown[];
    await store.set(factsKey(key), JSON.stringify([...stored, ["id", null, 1, 1, 0], "junk"]));
    const facts = memory({ logger });
    expect(await facts.list(key)).toEqual([good]);
    expect(warnings().map((line) => line.msg)).toEqual([
      expect.stringContaining("failed validation"),
      expect.stringContaining("failed validation"),
    ]);
    expect(await facts.remember(key, ["User works at Acme"])).toEqual({ added: 1, replaced: 0, skipped: 0 });
    expect(texts(await facts.list(key))).toEqual(["User lives in Berlin", "User works at Acme"]);
  });

  it.each([
    ["text that is not JSON", "{oops"],
    ["JSON that is not a list", JSON.stringify({ facts: [] })],
    ["a value that is not text", { id: "x" }],
  ])("treats a stored record of %s as no facts, with a warning", async (_, record) => {
    const key = conversation();
    const { logger, warnings } = capturingLogger();
    await store.set(factsKey(key), record);
    const facts = memory({ logger });
    expect(await facts.recall(key, "anything", 8)).toEqual([]);
    expect(warnings()[0]?.msg).toContain("not a JSON list");
  });

  it("refuses a cap below 1", () => {
    expect(() => createLongTermMemory(store, { maxFacts: 0, logger: silentLogger })).toThrow(RangeError);
  });
});
