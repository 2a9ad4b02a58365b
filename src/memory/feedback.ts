// 👍 / 👎 on answers, kept in the store so every process sees them: one vote per person and run
// (a second click changes it), running totals (the bot's, and each workspace's), and the most
// recent votes for approvers to read (all, or one workspace's). Votes sit in a ring of numbered
// slots (an atomic counter picks the slot), so the newest ones are found without a list that
// several processes would have to rewrite.
import { z } from "zod";
import type { KeyValueStore } from "./types.js";
import { isInWorkspace } from "./workspace-conversations.js";

export type Rating = "up" | "down";

const Entry = z.object({
  seq: z.number().int(),
  runId: z.string().min(1),
  surface: z.string().min(1),
  conversationKey: z.string().min(1),
  /** The Slack workspace or Discord server voted in (absent: none, or a vote an earlier version kept). */
  workspace: z.string().min(1).optional(),
  person: z.object({ id: z.string().min(1), name: z.string().optional() }),
  rating: z.enum(["up", "down"]),
  /** The guard that stopped the run, or "none" for a plain answer. */
  guard: z.string().min(1),
  /** Where the answer is (a permalink), when the surface has one. */
  link: z.string().optional(),
  comment: z.string().optional(),
  at: z.number(),
});
export type FeedbackEntry = z.infer<typeof Entry>;
export type FeedbackVote = Omit<FeedbackEntry, "seq" | "comment">;

const Vote = z.object({ seq: z.number().int(), rating: z.enum(["up", "down"]) });

export interface FeedbackTotals {
  readonly up: number;
  readonly down: number;
}

/** One workspace: its surface and id. */
export interface VotedIn {
  readonly surface: string;
  readonly workspace: string;
}

export interface FeedbackBook {
  /** Records a vote (or changes the person's earlier vote on the run); returns its slot and the bot's totals. */
  record(vote: FeedbackVote): Promise<{ readonly seq: number; readonly totals: FeedbackTotals }>;
  /** Adds the person's optional comment to their vote on the run; false when there is no such vote (any more). */
  comment(runId: string, personId: string, text: string): Promise<boolean>;
  /** The newest votes first (of one workspace when `within` is given). */
  recent(limit: number, within?: VotedIn): Promise<FeedbackEntry[]>;
  /** The bot's totals, or one workspace's (the votes counted since this version). */
  totals(within?: VotedIn): Promise<FeedbackTotals>;
  /** Deletes a workspace's votes and its totals (it removed the bot); returns how many votes went. */
  erase(within: VotedIn): Promise<number>;
}

/** Slots in the ring: the newest this many votes are kept. */
export const FEEDBACK_KEPT = 500;
export const COMMENT_MAX_CHARS = 1_000;
const YEAR_MS = 365 * 24 * 60 * 60_000;
const SEQ = "feedback:seq";
const slotKey = (seq: number) => `feedback:entry:${seq % FEEDBACK_KEPT}`;
const voteKey = (runId: string, personId: string) => `feedback:vote:${runId}:${personId}`;
const countKey = (rating: Rating, within?: VotedIn) =>
  within ? `feedback:count:${rating}:${within.surface}:${within.workspace}` : `feedback:count:${rating}`;
const votedIn = (vote: Pick<FeedbackEntry, "surface" | "workspace">): VotedIn | undefined =>
  vote.workspace ? { surface: vote.surface, workspace: vote.workspace } : undefined;
/** By its conversation, which names its workspace: votes an earlier version kept (without `workspace`) belong too. */
const isWithin = (entry: FeedbackEntry, within: VotedIn) =>
  entry.surface === within.surface &&
  (entry.workspace === within.workspace || isInWorkspace(entry.conversationKey, within.surface, within.workspace));

export function createFeedbackBook(store: KeyValueStore): FeedbackBook {
  async function load(seq: number): Promise<FeedbackEntry | undefined> {
    const parsed = Entry.safeParse(await store.get(slotKey(seq)));
    return parsed.success && parsed.data.seq === seq ? parsed.data : undefined;
  }

  const count = (rating: Rating, within?: VotedIn) => store.increment(countKey(rating, within), 0, YEAR_MS);
  /** Moves the bot's totals, and the workspace's the vote was given in. */
  const add = async (rating: Rating, by: number, vote: Pick<FeedbackEntry, "surface" | "workspace">) => {
    await store.increment(countKey(rating), by, YEAR_MS);
    const within = votedIn(vote);
    if (within) await store.increment(countKey(rating, within), by, YEAR_MS);
  };
  /** Every vote kept, newest first. */
  const kept = async (): Promise<FeedbackEntry[]> => {
    const newest = Number(await store.increment(SEQ, 0, 100 * YEAR_MS));
    const seqs = Array.from({ length: Math.min(newest, FEEDBACK_KEPT) }, (_, i) => newest - i);
    return (await Promise.all(seqs.map(load))).filter((entry): entry is FeedbackEntry => entry !== undefined);
  };

  return {
    async record(vote) {
      const earlier = Vote.safeParse(await store.get(voteKey(vote.runId, vote.person.id)));
      const previous = earlier.success ? await load(earlier.data.seq) : undefined;
      const seq = previous?.seq ?? (await store.increment(SEQ, 1, 100 * YEAR_MS));
      if (previous?.rating !== vote.rating) {
        await add(vote.rating, 1, vote);
        if (previous) await add(previous.rating, -1, previous);
      }
      await store.set(slotKey(seq), { ...previous, ...vote, seq } satisfies FeedbackEntry, YEAR_MS);
      await store.set(voteKey(vote.runId, vote.person.id), { seq, rating: vote.rating }, YEAR_MS);
      return { seq, totals: { up: await count("up"), down: await count("down") } };
    },
    async comment(runId, personId, text) {
      const vote = Vote.safeParse(await store.get(voteKey(runId, personId)));
      const entry = vote.success ? await load(vote.data.seq) : undefined;
      if (!entry || entry.person.id !== personId) return false;
      await store.set(slotKey(entry.seq), { ...entry, comment: text.slice(0, COMMENT_MAX_CHARS) } satisfies FeedbackEntry, YEAR_MS);
      return true;
    },
    async recent(limit, within) {
      if (within) return (await kept()).filter((entry) => isWithin(entry, within)).slice(0, limit);
      const newest = Number(await store.increment(SEQ, 0, 100 * YEAR_MS));
      const seqs = Array.from({ length: Math.min(limit, newest, FEEDBACK_KEPT) }, (_, i) => newest - i);
      const entries = await Promise.all(seqs.map(load));
      return entries.filter((entry): entry is FeedbackEntry => entry !== undefined);
    },
    totals: async (within) => ({ up: await count("up", within), down: await count("down", within) }),
    async erase(within) {
      const theirs = (await kept()).filter((entry) => isWithin(entry, within));
      for (const entry of theirs) {
        await store.delete(slotKey(entry.seq));
        await store.delete(voteKey(entry.runId, entry.person.id));
      }
      for (const rating of ["up", "down"] as const) await store.delete(countKey(rating, within));
      return theirs.length;
    },
  };
}
