// 👍 / 👎 on answers, kept in the store so every process sees them: one vote per person and run
// (a second click changes it), running totals, and the most recent votes for approvers to read.
// Votes sit in a ring of numbered slots (an atomic counter picks the slot), so the newest ones are
// found without a list that several processes would have to rewrite.
import { z } from "zod";
import type { KeyValueStore } from "./types.js";

export type Rating = "up" | "down";

const Entry = z.object({
  seq: z.number().int(),
  runId: z.string().min(1),
  surface: z.string().min(1),
  conversationKey: z.string().min(1),
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

export interface FeedbackBook {
  /** Records a vote (or changes the person's earlier vote on the run); returns its slot and the totals. */
  record(vote: FeedbackVote): Promise<{ readonly seq: number; readonly totals: FeedbackTotals }>;
  /** Adds the person's optional comment to their vote on the run; false when there is no such vote (any more). */
  comment(runId: string, personId: string, text: string): Promise<boolean>;
  /** The newest votes first. */
  recent(limit: number): Promise<FeedbackEntry[]>;
  totals(): Promise<FeedbackTotals>;
}

/** Slots in the ring: the newest this many votes are kept. */
export const FEEDBACK_KEPT = 500;
export const COMMENT_MAX_CHARS = 1_000;
const YEAR_MS = 365 * 24 * 60 * 60_000;
const SEQ = "feedback:seq";
const slotKey = (seq: number) => `feedback:entry:${seq % FEEDBACK_KEPT}`;
const voteKey = (runId: string, personId: string) => `feedback:vote:${runId}:${personId}`;
const countKey = (rating: Rating) => `feedback:count:${rating}`;

export function createFeedbackBook(store: KeyValueStore): FeedbackBook {
  async function load(seq: number): Promise<FeedbackEntry | undefined> {
    const parsed = Entry.safeParse(await store.get(slotKey(seq)));
    return parsed.success && parsed.data.seq === seq ? parsed.data : undefined;
  }

  const count = (rating: Rating) => store.increment(countKey(rating), 0, YEAR_MS);

  return {
    async record(vote) {
      const earlier = Vote.safeParse(await store.get(voteKey(vote.runId, vote.person.id)));
      const previous = earlier.success ? await load(earlier.data.seq) : undefined;
      const seq = previous?.seq ?? (await store.increment(SEQ, 1, 100 * YEAR_MS));
      if (previous?.rating !== vote.rating) {
        await store.increment(countKey(vote.rating), 1, YEAR_MS);
        if (previous) await store.increment(countKey(previous.rating), -1, YEAR_MS);
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
    async recent(limit) {
      const newest = Number(await store.increment(SEQ, 0, 100 * YEAR_MS));
      const seqs = Array.from({ length: Math.min(limit, newest, FEEDBACK_KEPT) }, (_, i) => newest - i);
      const entries = await Promise.all(seqs.map(load));
      return entries.filter((entry): entry is FeedbackEntry => entry !== undefined);
    },
    totals: async () => ({ up: await count("up"), down: await count("down") }),
  };
}
