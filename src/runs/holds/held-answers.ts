// An answer held because it quotes a more private place (hold-decision.ts), kept in the store
// until its requester chooses: post it where it was asked, get it privately, or drop it. Only
// the store holds it, so a restart while it waits posts nothing; a choice takes it out of the
// store first (the one delete that removes it wins), so two clicks (or two processes) act once.
// It expires unanswered after HELD_TTL_MS.
import { z } from "zod";
import type { TaskOrigin } from "../../contracts/types.js";
import type { KeyValueStore } from "../../memory/types.js";

export const HELD_TTL_MS = 24 * 60 * 60_000;

export type HeldChoice = "post" | "private" | "drop";

export interface HeldAnswer {
  readonly runId: string;
  readonly origin: TaskOrigin;
  readonly answer: string;
  readonly places: readonly string[];
  readonly heldAt: number;
}

const HeldAnswerSchema = z.object({
  runId: z.string().max(200),
  // The origin was checked when the run was taken in; a stored copy is read as the run's own origin.
  origin: z.custom<TaskOrigin>((value) => typeof value === "object" && value !== null && "conversationKey" in value),
  answer: z.string().max(200_000),
  places: z.array(z.string().max(200)).max(100),
  heldAt: z.number(),
});

const heldKey = (runId: string) => `held-answer:${runId}`;

export interface HeldAnswers {
  /** Keeps it (again, after a choice that could not be carried out). */
  keep(held: HeldAnswer): Promise<void>;
  /** The held answer of `runId`, taken out of the store by this call alone; undefined when gone, expired or taken. */
  take(runId: string): Promise<HeldAnswer | undefined>;
}

export function heldAnswers(store: KeyValueStore): HeldAnswers {
  return {
    keep: (held) => store.set(heldKey(held.runId), held, HELD_TTL_MS),
    async take(runId) {
      const parsed = HeldAnswerSchema.safeParse(await store.get(heldKey(runId)));
      if (!parsed.success) return undefined;
      return (await store.delete(heldKey(runId))) ? parsed.data : undefined;
    },
  };
}
