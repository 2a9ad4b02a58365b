import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/logger.js";
import fc from "fast-check";
import { TokenCounter } from "../../src/tokens/token-counter.js";
import { createConversationHistory, cutToTokens, historyKey, type HistoryOptions } from "../../src/memory/history.js";
import { openStore } from "../../src/memory/keyv-store.js";
import type { KeyValueStore, Turn } from "../../src/memory/types.js";
import { capturingLogger } from "../support/capturing-logger.js";
import { temporaryFolder } from "../support/temporary-folder.js";

let folder: Awaited<ReturnType<typeof temporaryFolder>>;
let store: KeyValueStore;
let conversations = 0;

beforeAll(async () => {
  folder = await temporaryFolder();
  store = await openStore(`sqlite://${join(folder.path, "history.sqlite")}`, silentLogger);
});
afterAll(async () => {
  await store.close();
  await folder.remove();
});

/** A fresh conversation key per test, so tests never see each other's turns. */
function conversation(): string {
  conversations += 1;
  return `console:test-${conversations}`;
}

function turn(index: number, size = 1): Turn {
  return { user: `q${index}`.padEnd(size, "."), assistant: `a${index}`.padEnd(size, "."), at: 1_000 + index };
}

function history(options: Partial<HistoryOptions> = {}) {
  return createConversationHistory(store, {
    maxTurns: 10,
    maxTokens: 10_000,
    countTokens: (text) => text.length,
    logger: silentLogger,
    ...options,
  });
}

describe("conversation history", () => {
  it("is empty for a new conversation", async () => {
    expect(await history().load(conversation())).toEqual([]);
  });

  it("loads appended turns oldest first", async () => {
    const key = conversation();
    const memory = history();
    for (const index of [1, 2, 3]) await memory.append(key, turn(index));
    expect(await memory.load(key)).toEqual([turn(1), turn(2), turn(3)]);
  });

  it("keeps at most maxTurns, dropping the oldest in a block so the history's start holds for several runs", async () => {
    const key = conversation();
    const memory = history({ maxTurns: 10 });
    const firstTurns: string[] = [];
    for (let index = 1; index <= 16; index += 1) {
      await memory.append(key, turn(index));
      firstTurns.push((await memory.load(key))[0]!.user);
    }
    // The 11th turn trims to two thirds (6 turns); the start then holds for five runs, until the 16th trims again.
    expect(firstTurns).toEqual([...Array(10).fill("q1"), ...Array(5).fill("q6"), "q11"]);
    const loaded = await memory.load(key);
    expect(loaded.map((t) => t.user)).toEqual(Array.from({ length: 6 }, (_, i) => `q${i + 11}`));
    expect(await store.get(historyKey(key))).toHaveLength(6);
  });

  it("trims a history stored under larger limits the same way when it loads", async () => {
    const key = conversation();
    await store.set(
      historyKey(key),
      Array.from({ length: 12 }, (_, index) => turn(index + 1)),
    );
    expect((await history({ maxTurns: 10 }).load(key)).map((t) => t.user)).toEqual(["q7", "q8", "q9", "q10", "q11", "q12"]);
  });

  it("loads only the newest turns that fit maxTokens", async () => {
    const key = conversation();
    const memory = history({ maxTokens: 25 });
    for (const index of [1, 2, 3, 4]) await memory.append(key, turn(index, 5));
    // Each turn counts 10 tokens: two fit in 25, three do not.
    expect(await memory.load(key)).toEqual([turn(3, 5), turn(4, 5)]);
  });

  it("loads nothing when even the newest turn is over the token budget", async () => {
    const key = conversation();
    const memory = history({ maxTokens: 5 });
    await memory.append(key, turn(1, 10));
    expect(await memory.load(key)).toEqual([]);
  });

  it("skips a stored turn that fails validation, with a warning", async () => {
    const key = conversation();
    const { logger, warnings } = capturingLogger();
    await store.set(historyKey(key), [turn(1), { user: 42, assistant: "a", at: 1 }, "junk", turn(2)]);
    expect(await history({ logger }).load(key)).toEqual([turn(1), turn(2)]);
    expect(warnings()).toHaveLength(2);
    expect(warnings()[0]).toMatchObject({ conversationKey: key, index: 1, msg: expect.stringContaining("failed validation") });
  });

  it("treats a stored record that is not a list as no history, with a warning, and recovers on the next append", async () => {
    const key = conversation();
    const { logger, warnings } = capturingLogger();
    await store.set(historyKey(key), { not: "a list" });
    const memory = history({ logger });
    expect(await memory.load(key)).toEqual([]);
    expect(warnings()[0]?.msg).toContain("not a list of turns");
    await memory.append(key, turn(1));
    expect(await memory.load(key)).toEqual([turn(1)]);
  });

  it("loses no turn when appends to one conversation run concurrently", async () => {
    const key = conversation();
    const memory = history({ maxTurns: 50 });
    await Promise.all(Array.from({ length: 20 }, (_, index) => memory.append(key, turn(index))));
    const loaded = await memory.load(key);
    expect(loaded).toHaveLength(20);
    expect(loaded.map((t) => t.user)).toEqual(Array.from({ length: 20 }, (_, i) => `q${i}`));
  });

  it("keeps conversations apart and clears one without touching the other", async () => {
    const [first, second] = [conversation(), conversation()];
    const memory = history();
    await memory.append(first, turn(1));
    await memory.append(second, turn(2));
    await memory.clear(first);
    expect(await memory.load(first)).toEqual([]);
    expect(await memory.load(second)).toEqual([turn(2)]);
  });

  it("refuses to append a turn that is not well formed", async () => {
    const memory = history();
    await expect(memory.append(conversation(), { user: "q", assistant: "a", at: Number.NaN })).rejects.toThrow();
  });

  it("keeps a 1 MB message cut to a quarter of the budget, with a note, so earlier turns still load", async () => {
    const counter = TokenCounter.forModel("gpt-4o-mini");
    const countTokens = (text: string) => counter.countText(text);
    const key = conversation();
    const memory = history({ maxTokens: 4_000, countTokens });
    await memory.append(key, turn(1));
    await memory.append(key, turn(2));
    const huge = "The log follows. ".repeat(62_000);
    await memory.append(key, { user: huge, assistant: "a3", at: 1_003 });
    const loaded = await memory.load(key);
    expect(loaded.map((t) => t.assistant)).toEqual(["a1", "a2", "a3"]);
    const cut = loaded[2]!.user;
    expect(huge.startsWith(cut.slice(0, cut.indexOf("\n[…")))).toBe(true);
    expect(cut).toMatch(/\n\[… cut: the message was 1054000 characters long; only its start is kept\]$/);
    expect(countTokens(cut)).toBeLessThanOrEqual(1_000);
    expect(countTokens(cut)).toBeGreaterThan(900);
    const stored = (await store.get(historyKey(key))) as Turn[];
    expect(stored[2]!.user).toBe(cut);
  });

  it("never asks for a count of more than a few limits of text, and takes an asynchronous count", async () => {
    const counter = TokenCounter.forModel("gpt-4o-mini");
    const asked: number[] = [];
    const countTokens = async (text: string) => {
      asked.push(text.length);
      return counter.countTextYielding(text);
    };
    const key = conversation();
    await store.set(historyKey(key), [turn(1), { user: "公司的服务器".repeat(170_000), assistant: "a2", at: 1_002 }]);
    const loaded = await history({ maxTokens: 4_000, countTokens }).load(key);
    expect(loaded.map((t) => t.assistant)).toEqual(["a1", "a2"]);
    expect(loaded[1]!.user).toMatch(/only its start is kept\]$/);
    // A side's limit is 1,000 tokens: no count looks at more than a few thousand characters of the 1 MB message.
    expect(Math.max(...asked)).toBeLessThanOrEqual(4_000);
  });

  it("cuts a turn stored whole before the bound existed when it loads", async () => {
    const key = conversation();
    await store.set(historyKey(key), [turn(1), { user: "x".repeat(5_000), assistant: "a2", at: 1_002 }]);
    const loaded = await history({ maxTokens: 400 }).load(key);
    expect(loaded.map((t) => t.assistant)).toEqual(["a1", "a2"]);
    expect(loaded[1]!.user).toMatch(/^x+\n\[… cut: the message was 5000 characters long; only its start is kept\]$/);
    expect(loaded[1]!.user.length).toBeLessThanOrEqual(100);
  });
});

describe("cutToTokens", () => {
  it("returns a text that fits unchanged", async () => {
    expect(await cutToTokens("short", 10, (text) => text.length)).toBe("short");
    expect(await cutToTokens("😀".repeat(5), 5, (text) => [...text].length)).toBe("😀".repeat(5));
  });

  it("keeps the start of a longer text and the note within the limit, never half a character", async () => {
    const counter = TokenCounter.forModel("gpt-4o-mini");
    const countTokens = (text: string) => counter.countText(text);
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: "grapheme", minLength: 0, maxLength: 3_000 }),
        fc.integer({ min: 40, max: 400 }),
        async (text, limit) => {
          const cut = await cutToTokens(text, limit, countTokens);
          if (cut === text) return countTokens(text) <= limit;
          const kept = cut.slice(0, cut.lastIndexOf("\n[… cut:"));
          return text.startsWith(kept) && countTokens(cut) <= limit && !/[\ud800-\udbff]$/.test(kept);
        },
      ),
      { numRuns: 150 },
    );
  });
});
