// One schedule as it is stored: whose it is, where its results go, what it asks, when, and
// where it stands. Checked with zod whenever it is read back: the store is untrusted.
import { randomBytes } from "node:crypto";
import { z } from "zod";
import { PersonSchema, RunStateSchema } from "../agent/loop/run-state.js";
import type { Person, TaskOrigin } from "../contracts/types.js";
import type { When } from "./slots.js";

/** Longest task text a schedule keeps (a chat message's length, roughly). */
export const MAX_WHAT_CHARS = 4_000;
const ID_PATTERN = /^sch_[a-z0-9]{8}$/;
const ID_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";

const WhenSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("cron"), expression: z.string().min(1).max(200), timeZone: z.string().min(1), phrase: z.string().max(400) }),
  z.object({ kind: z.literal("once"), at: z.number(), timeZone: z.string().min(1).optional(), phrase: z.string().max(400) }),
]) satisfies z.ZodType<When>;

export const ScheduleRecordSchema = z.object({
  version: z.literal(1),
  id: z.string().regex(ID_PATTERN),
  owner: PersonSchema,
  /** Where the schedule was made: its runs go to this channel (and, with `thread: origin`, this thread). */
  origin: RunStateSchema.shape.origin,
  thread: z.enum(["per_slot", "origin"]),
  what: z.string().min(1).max(MAX_WHAT_CHARS),
  when: WhenSchema,
  state: z.enum(["active", "paused", "ended"]),
  /** Why it paused or ended, in a few words ("failed 3 slots in a row", "cancelled by Ana"). */
  reason: z.string().max(300).optional(),
  /** Slots in a row whose run failed; three pause the schedule. */
  failureStreak: z.number().int().nonnegative(),
  /** Slots missed while the bot was down and not run (counted, never replayed). */
  skippedSlots: z.number().int().nonnegative(),
  createdAt: z.number(),
  changedAt: z.number(),
  createdVia: z.enum(["command", "tool"]),
  /** The slot armed next; none once it ended or while paused. */
  nextSlot: z.number().optional(),
  /** The latest slot that was fired (run, refused or silent). */
  lastSlot: z.number().optional(),
});

export type ScheduleRecord = z.infer<typeof ScheduleRecordSchema>;
export type ScheduleState = ScheduleRecord["state"];

export function isScheduleId(text: string): boolean {
  return ID_PATTERN.test(text);
}

/** `sch_` and 8 random characters of [a-z0-9]. */
export function newScheduleId(): string {
  const bytes = randomBytes(8);
  let id = "sch_";
  for (const byte of bytes) id += ID_ALPHABET[byte % ID_ALPHABET.length];
  return id;
}

/** The channel a schedule's limits count against: the one that governs (a thread's parent), else (console) the conversation. */
export function channelOf(origin: TaskOrigin): string {
  return origin.scope?.channel ?? origin.conversationKey;
}

export function ownerName(owner: Person): string {
  return owner.name ?? owner.id;
}
