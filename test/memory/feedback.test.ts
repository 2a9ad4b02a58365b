// The feedback book on a real SQLite store: one vote per person and run (a second click changes
// it and the totals follow), comments only on one's own vote, the newest votes first, and what
// another process on the same store sees.
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createFeedbackBook, type FeedbackVote } from "../../src/memory/feedback.js";
import { silentLogger } from "../../src/logger.js";
import { openStore } from "../../src/memory/keyv-store.js";
import type { KeyValueStore } from "../../src/memory/types.js";
import { temporaryFolder } from "../support/temporary-folder.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function store(path?: string): Promise<{ store: KeyValueStore; path: string }> {
  let at = path;
  if (!at) {
    const folder = await temporaryFolder();
    cleanups.push(folder.remove);
    at = join(folder.path, "bot.sqlite");
  }
  const opened = await openStore(`sqlite://${at}`, silentLogger);
  cleanups.push(() => opened.close());
  return { store: opened, path: at };
}

const vote = (runId: string, person: string, rating: "up" | "down"): FeedbackVote => ({
  runId,
  surface: "slack",
  conversationKey: `slack:T:C:${runId}`,
  person: { id: person },
  rating,
  guard: "none",
  at: 1,
});

describe("feedback book", () => {
  it("keeps one vote per person and run, and the totals follow a changed vote", async () => {
    const book = createFeedbackBook((await store()).store);
    expect((await book.record(vote("r1", "alice", "up"))).totals).toEqual({ up: 1, down: 0 });
    expect((await book.record(vote("r1", "bob", "down"))).totals).toEqual({ up: 1, down: 1 });
    const changed = await book.record(vote("r1", "alice", "down"));
    expect(changed.totals).toEqual({ up: 0, down: 2 });
    expect((await book.record(vote("r1", "alice", "down"))).totals).toEqual({ up: 0, down: 2 });
    const recent = await book.recent(20);
    expect(recent.map((entry) => [entry.person.id, entry.rating])).toEqual([
      ["bob", "down"],
      ["alice", "down"],
    ]);
  });

  it("adds a comment only to the person's own vote", async () => {
    const book = createFeedbackBook((await store()).store);
    await book.record(vote("r2", "alice", "down"));
    expect(await book.comment("r2", "mallory", "spam")).toBe(false);
    expect(await book.comment("r2", "alice", "It ignored my channel.")).toBe(true);
    expect((await book.recent(1))[0]).toMatchObject({ runId: "r2", comment: "It ignored my channel." });
  });

  it("lists the newest votes first, bounded, also for another process on the store", async () => {
    const first = await store();
    const book = createFeedbackBook(first.store);
    for (let i = 1; i <= 25; i++) await book.record(vote(`run${i}`, "alice", i % 2 === 0 ? "up" : "down"));
    const other = createFeedbackBook((await store(first.path)).store);
    const recent = await other.recent(20);
    expect(recent).toHaveLength(20);
    expect(recent[0]?.runId).toBe("run25");
    expect(recent.at(-1)?.runId).toBe("run6");
    expect(await other.totals()).toEqual({ up: 12, down: 13 });
  });
});

describe("feedback of several workspaces", () => {
  const inWorkspace = (workspace: string, runId: string, person: string, rating: "up" | "down"): FeedbackVote => ({
    ...vote(runId, person, rating),
    conversationKey: `slack:${workspace}:C1:${runId}`,
    workspace,
  });

  it("counts and lists each workspace's votes apart, an earlier version's vote by its conversation; erases one workspace's only", async () => {
    const { store: opened } = await store();
    const book = createFeedbackBook(opened);
    await book.record(inWorkspace("T1", "r1", "U1", "up"));
    await book.record(inWorkspace("T1", "r1", "U1", "down"));
    await book.record(inWorkspace("T2", "r2", "U2", "up"));
    // As an earlier version kept it: no workspace of its own.
    await book.record({ ...vote("r0", "U0", "up"), conversationKey: "slack:T2:C1:r0" });
    const t1 = { surface: "slack", workspace: "T1" };
    const t2 = { surface: "slack", workspace: "T2" };
    expect(await book.totals(t1)).toEqual({ up: 0, down: 1 });
    expect(await book.totals(t2)).toEqual({ up: 1, down: 0 });
    expect(await book.totals()).toEqual({ up: 2, down: 1 });
    expect((await book.recent(10, t1)).map((entry) => entry.runId)).toEqual(["r1"]);
    expect((await book.recent(10, t2)).map((entry) => entry.runId)).toEqual(["r0", "r2"]);
    expect((await book.recent(1, t2)).map((entry) => entry.runId)).toEqual(["r0"]);

    expect(await book.erase(t2)).toBe(2);
    expect(await book.recent(10, t2)).toEqual([]);
    expect(await book.totals(t2)).toEqual({ up: 0, down: 0 });
    expect((await book.recent(10)).map((entry) => entry.runId)).toEqual(["r1"]);
    // A vote erased is no vote: a comment finds nothing to join.
    expect(await book.comment("r2", "U2", "late")).toBe(false);
  });
});
