// The audit log: approvals asked, decided and expired, decisions governance refused (the person
// deciding, or the run they let go on, had lost access or reached a limit), every write that ran,
// how each server's form ended (who answered it and how, never what they entered), remembered facts an
// admin deleted (the explorer), and what schedules did (made, changed, paused, resumed, cancelled;
// slots late, skipped, silent, refused), appended
// to the store with the run, the conversation and the process. Entries are numbered by an
// atomic counter, so several processes append to one log and readers walk it newest first.
import { hostname } from "node:os";
import { z } from "zod";
import type { KeyValueStore } from "../memory/types.js";

const SEQUENCE_KEY = "audit:seq";
/** The last entry `rewrite` has seen. */
const REWRITTEN_KEY = "audit:rewritten";
const entryKey = (seq: number) => `audit:entry:${seq}`;
/** The sequence must never restart while entries are kept; ten years is "never" here. */
const SEQUENCE_TTL_MS = 10 * 365 * 24 * 60 * 60_000;
export const AUDIT_RETENTION_MS = 90 * 24 * 60 * 60_000;
/** Entries gone (expired, or a crash between numbering and writing) are skipped up to this many in a row. */
const MAX_GAP = 50;
/** Entries a listing with `match` reads at most: a workspace's latest are found in bounded time. */
const MATCH_SCAN = 10_000;
/** Entries read in one round trip by `erase`, which walks them all. */
const ERASE_CHUNK = 500;

const PersonSchema = z.object({ id: z.string(), name: z.string().optional() });

export const AuditEntrySchema = z.object({
  seq: z.number().int(),
  at: z.number(),
  kind: z.enum([
    "approval_requested",
    "approval_decided",
    "approval_expired",
    // A decision not applied: the person deciding, or the run it would let go on, is refused now (the settings file, a limit).
    "decision_refused",
    "write_executed",
    // A server's form (MCP elicitation) ended: sent, declined, dismissed, or cancelled without the person (its expiry, a Stop).
    "form_answered",
    // A schedule's life (runId: the schedule's id) and its slots that did not simply run on time (runId: the slot's run).
    "schedule_created",
    "schedule_changed",
    "schedule_paused",
    "schedule_resumed",
    "schedule_cancelled",
    "slot_late",
    "slot_skipped",
    "slot_silent",
    "slot_refused",
    "fact_deleted",
    // A person edited or deleted their question (reason: what became of it).
    "question_edited",
    "question_deleted",
    // A workspace (or server) removed the bot; runId: its installation's key. The one line kept of it.
    "workspace_removed",
    // A write carried text or a destination from content someone else wrote (reason: where from): shown with a warning, or refused (UNTRUSTED_WRITES).
    "untrusted_write_warned",
    "untrusted_write_refused",
    // An answer quoting a place not everyone where it was asked can see was held (reason: the place; outcome: what the person chose).
    "answer_held",
  ]),
  runId: z.string(),
  conversationKey: z.string(),
  surface: z.enum(["console", "slack", "discord"]),
  /** The surface's own ids of the conversation; never a secret (entries stored with one are scrubbed at start). */
  place: z.record(z.string(), z.string()),
  /** Where the conversation opens, as the surface links to it. */
  link: z.string().optional(),
  requester: PersonSchema,
  tool: z.string().optional(),
  callId: z.string().optional(),
  /** The arguments shown for approval, as JSON, cut to a preview. */
  args: z.string().optional(),
  decision: z.enum(["approve", "deny"]).optional(),
  decidedBy: PersonSchema.optional(),
  /** Why governance refused it (a refused decision). */
  reason: z.string().optional(),
  /**
   * For a server's form: which server asked (a form, or a page to open) and how it ended; `decidedBy` is who answered.
   * Never the values: a form may ask for a secret.
   */
  form: z
    .object({
      server: z.string(),
      kind: z.enum(["form", "url"]),
      action: z.enum(["accept", "decline", "cancel"]),
      /** Why a form was cancelled: dismissed, timeout, stopped, unavailable, withdrawn. */
      reason: z.string().optional(),
    })
    .optional(),
  /** For a write: ok, error, timeout… and the start of its result. */
  outcome: z.string().optional(),
  result: z.string().optional(),
  /** For schedule entries: which schedule and slot, who acted (the owner, an admin, or none: the bot), and why. */
  schedule: z
    .object({
      id: z.string(),
      slotAt: z.number().optional(),
      firedAt: z.number().optional(),
      /** Slots skipped (missed while down, older than SCHEDULE_CATCH_UP_MINUTES). */
      skipped: z.number().int().optional(),
      by: PersonSchema.optional(),
      reason: z.string().optional(),
    })
    .optional(),
  process: z.object({ pid: z.number(), hostname: z.string() }),
});

export type AuditEntry = z.infer<typeof AuditEntrySchema>;
export type AuditDraft = Omit<AuditEntry, "seq" | "at" | "process">;

export interface AuditQuery {
  readonly limit?: number;
  /** Epoch ms: only entries at or after it. */
  readonly since?: number;
  /** Only the entries it picks (one workspace's); the log is walked for them at most MATCH_SCAN entries deep. */
  readonly match?: (entry: AuditEntry) => boolean;
}

export interface AuditLog {
  append(draft: AuditDraft): Promise<AuditEntry>;
  /** Newest first. */
  list(query: AuditQuery): Promise<readonly AuditEntry[]>;
  /**
   * Rewrites each entry appended since the last call (at start: an older version stored secrets
   * in entries) with what `fix` returns; undefined keeps it. Returns how many changed.
   */
  rewrite(fix: (entry: AuditEntry) => AuditEntry | undefined): Promise<number>;
  /** Deletes every entry kept that `match` picks (a workspace removed the bot); returns how many went. */
  erase(match: (entry: AuditEntry) => boolean): Promise<number>;
}

const thisProcess = { pid: process.pid, hostname: hostname() };

export function createAuditLog(store: KeyValueStore, clock: () => number = Date.now): AuditLog {
  return {
    async append(draft) {
      const seq = await store.increment(SEQUENCE_KEY, 1, SEQUENCE_TTL_MS);
      const entry: AuditEntry = { ...draft, seq, at: clock(), process: thisProcess };
      await store.set(entryKey(seq), entry, AUDIT_RETENTION_MS);
      return entry;
    },
    async list({ limit = Number.POSITIVE_INFINITY, since, match }) {
      const entries: AuditEntry[] = [];
      let gap = 0;
      const last = await store.increment(SEQUENCE_KEY, 0, SEQUENCE_TTL_MS);
      const first = match ? last - MATCH_SCAN : 0;
      for (let seq = last; seq >= 1 && seq > first && entries.length < limit && gap < MAX_GAP; seq--) {
        const parsed = AuditEntrySchema.safeParse(await store.get(entryKey(seq)));
        if (!parsed.success) {
          gap++;
          continue;
        }
        gap = 0;
        // Appends from racing processes may land a little out of order in time; a small overlap is kept.
        if (since !== undefined && parsed.data.at < since) break;
        if (!match || match(parsed.data)) entries.push(parsed.data);
      }
      return entries;
    },
    async rewrite(fix) {
      const from = Number((await store.get(REWRITTEN_KEY)) ?? 0);
      const last = await store.increment(SEQUENCE_KEY, 0, SEQUENCE_TTL_MS);
      let changed = 0;
      for (let seq = Number.isSafeInteger(from) ? from + 1 : 1; seq <= last; seq++) {
        const parsed = AuditEntrySchema.safeParse(await store.get(entryKey(seq)));
        const fixed = parsed.success ? fix(parsed.data) : undefined;
        if (!fixed) continue;
        await store.set(entryKey(seq), fixed, Math.max(1, fixed.at + AUDIT_RETENTION_MS - clock()));
        changed++;
      }
      await store.set(REWRITTEN_KEY, last, SEQUENCE_TTL_MS);
      return changed;
    },
    async erase(match) {
      const last = await store.increment(SEQUENCE_KEY, 0, SEQUENCE_TTL_MS);
      let erased = 0;
      for (let first = 1; first <= last; first += ERASE_CHUNK) {
        const seqs = Array.from({ length: Math.min(ERASE_CHUNK, last - first + 1) }, (_, index) => first + index);
        const raw = await store.getMany(seqs.map(entryKey));
        for (const [index, value] of raw.entries()) {
          const parsed = AuditEntrySchema.safeParse(value);
          if (!parsed.success || !match(parsed.data)) continue;
          await store.delete(entryKey(seqs[index]!));
          erased++;
        }
      }
      return erased;
    },
  };
}
