// The run records in the store: a record and its summary per run, listed in ordered indexes;
// pages of them filtered and newest first; a conversation's records deleted; votes noted; and
// retention by age (RUN_RETENTION_DAYS) and by count (RUN_RETENTION_MAX). Usage counters are
// kept apart (usage-counters.ts): retention deletes records, never the counters.
import type { IndexHit, KeyValueStore } from "../types.js";
import {
  ALL_RUNS,
  CONVERSATIONS,
  conversationIndex,
  decodeCursor,
  encodeCursor,
  indexesOf,
  indexFor,
  matches,
  recordKey,
  summaryKey,
  type RunQuery,
} from "./record-index.js";
import {
  RunRecordSchema,
  RunSummarySchema,
  SUMMARY_QUESTION_CHARS,
  usageByEndpoint,
  type RunRecord,
  type RunSummary,
} from "./record-schema.js";

export interface RetentionOptions {
  readonly days: number;
  readonly max: number;
}

export type RecordLoad =
  | { readonly kind: "found"; readonly record: RunRecord }
  | { readonly kind: "missing" }
  | { readonly kind: "invalid"; readonly reason: string };

export interface RunPage {
  readonly runs: readonly RunSummary[];
  /** The cursor of the next page, when there may be more. */
  readonly next?: string;
}

export interface ConversationEntry {
  readonly conversationKey: string;
  readonly lastRunAt: number;
}

/** A recorded run of a conversation: where and by whom it was asked, and the calls it asked a person to approve. */
export interface RecordedRun {
  readonly runId: string;
  readonly channel?: string;
  readonly requester?: string;
  readonly approvalCalls: readonly string[];
}

export interface RunRecordStore {
  /** Writes the record and its summary and lists it; `previous`: the record it replaces (a paused run's), whose indexes it may leave. */
  save(record: RunRecord, previous?: RunRecord): Promise<void>;
  load(runId: string): Promise<RecordLoad>;
  /** A page of summaries; throws RangeError for a cursor that is not one of ours. */
  list(query: RunQuery): Promise<RunPage>;
  /** Conversations newest first by their latest run. */
  conversations(limit: number, before?: number): Promise<ConversationEntry[]>;
  /** Deletes every record of a conversation (the `forget` command); returns how many. */
  deleteConversation(conversationKey: string): Promise<number>;
  /** Every recorded run of a conversation (what else a run keeps under its id goes with its workspace). */
  runsOf(conversationKey: string): Promise<RecordedRun[]>;
  /** A person's 👍 / 👎 on a recorded run; false when the run has no record (any more). */
  noteVote(runId: string, personId: string, rating: "up" | "down"): Promise<boolean>;
  /** Removes records older than the retention days and the oldest beyond the maximum; returns how many went. */
  sweep(now: number): Promise<number>;
}

/** Summaries checked per page at most: a text search over 100,000 runs answers in bounded time and says where to go on. */
export const SCAN_BUDGET = 4_000;
const CHUNK = 400;
const DAY_MS = 24 * 60 * 60_000;
/**
 * Records and summaries outlive their retention by this long in the store: the sweep deletes them
 * on time and, finding each summary, the index entries that list it. The TTL is only the backstop
 * for a store no process sweeps any more.
 */
const SWEEP_GRACE_MS = 7 * DAY_MS;
const SWEEP_BATCH = 500;

export function summaryOf(record: RunRecord): RunSummary {
  const endpoints = usageByEndpoint(record.steps);
  const base = {
    runId: record.runId,
    surface: record.surface,
    conversationKey: record.conversationKey,
    channel: record.channel,
    ...(record.workspace ? { workspace: record.workspace } : {}),
    requester: record.requester,
    question: record.question.slice(0, SUMMARY_QUESTION_CHARS),
    startedAt: record.startedAt,
    durationMs: Math.max(0, record.endedAt - record.startedAt),
    outcome: record.outcome,
    ...(record.stop ? { guard: record.stop.guard } : {}),
    steps: record.steps.length,
    model: record.settings.model,
    usage: record.usage,
    ...(endpoints ? { endpoints } : {}),
    votes: record.votes,
  };
  const denied = record.approvals.filter((approval) => approval.decision === "deny").length;
  return { ...base, ...(denied > 0 ? { denied } : {}), indexes: indexesOf(base) };
}

export function createRunRecordStore(store: KeyValueStore, retention: RetentionOptions): RunRecordStore {
  const keepMs = retention.days * DAY_MS;
  const ttlMs = keepMs + SWEEP_GRACE_MS;

  async function writeSummary(summary: RunSummary, before: RunSummary | undefined): Promise<void> {
    const gone = (before?.indexes ?? []).filter((key) => !summary.indexes.includes(key));
    await store.set(summaryKey(summary.runId), summary, ttlMs);
    await store.addToIndex([
      ...summary.indexes.map((key) => ({ key, member: summary.runId, score: summary.startedAt })),
      { key: CONVERSATIONS, member: summary.conversationKey, score: summary.startedAt },
    ]);
    for (const key of gone) await store.removeFromIndex(key, [summary.runId]);
  }

  async function remove(runIds: readonly string[]): Promise<void> {
    const summaries = await store.getMany(runIds.map(summaryKey));
    const byIndex = new Map<string, string[]>([[ALL_RUNS, [...runIds]]]);
    summaries.forEach((raw) => {
      const parsed = RunSummarySchema.safeParse(raw);
      if (!parsed.success) return;
      for (const key of parsed.data.indexes) if (key !== ALL_RUNS) byIndex.set(key, [...(byIndex.get(key) ?? []), parsed.data.runId]);
    });
    for (const [key, members] of byIndex) await store.removeFromIndex(key, members);
    for (const runId of runIds) {
      await store.delete(recordKey(runId));
      await store.delete(summaryKey(runId));
    }
  }

  return {
    async save(record, previous) {
      await store.set(recordKey(record.runId), record, ttlMs);
      await writeSummary(summaryOf(record), previous ? summaryOf(previous) : undefined);
    },

    async load(runId) {
      const raw = await store.get(recordKey(runId));
      if (raw === undefined) return { kind: "missing" };
      const parsed = RunRecordSchema.safeParse(raw);
      if (!parsed.success) return { kind: "invalid", reason: parsed.error.issues[0]?.message ?? "it does not match the record format" };
      return { kind: "found", record: parsed.data };
    },

    async list(query) {
      let after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
      if (query.cursor !== undefined && !after) throw new RangeError("the cursor is not one this server gave out");
      const index = indexFor(query);
      const runs: RunSummary[] = [];
      let scanned = 0;
      for (;;) {
        const hits = await store.indexRange(index, {
          limit: CHUNK,
          ...(query.since === undefined ? {} : { min: query.since }),
          ...(query.until === undefined ? {} : { max: query.until }),
          ...(after ? { after } : {}),
        });
        const summaries = await store.getMany(hits.map((hit) => summaryKey(hit.member)));
        for (const [position, hit] of hits.entries()) {
          after = hit;
          scanned += 1;
          const parsed = RunSummarySchema.safeParse(summaries[position]);
          if (parsed.success && matches(parsed.data, query)) runs.push(parsed.data);
          if (runs.length === query.limit || scanned >= SCAN_BUDGET) return { runs, next: encodeCursor(hit) };
        }
        if (hits.length < CHUNK) return { runs };
      }
    },

    async conversations(limit, before) {
      const hits = await store.indexRange(CONVERSATIONS, { limit, ...(before === undefined ? {} : { max: before - 1 }) });
      return hits.map((hit) => ({ conversationKey: hit.member, lastRunAt: hit.score }));
    },

    async deleteConversation(conversationKey) {
      const index = conversationIndex(conversationKey);
      let removed = 0;
      for (;;) {
        const hits = await store.indexRange(index, { limit: SWEEP_BATCH });
        if (hits.length === 0) break;
        await remove(hits.map((hit) => hit.member));
        await store.removeFromIndex(
          index,
          hits.map((hit) => hit.member),
        );
        removed += hits.length;
      }
      await store.removeFromIndex(CONVERSATIONS, [conversationKey]);
      return removed;
    },

    async runsOf(conversationKey) {
      const runs: RecordedRun[] = [];
      for (let after: IndexHit | undefined; ; ) {
        const hits = await store.indexRange(conversationIndex(conversationKey), { limit: CHUNK, ...(after ? { after } : {}) });
        const records = await store.getMany(hits.map((hit) => recordKey(hit.member)));
        for (const [position, hit] of hits.entries()) {
          const parsed = RunRecordSchema.safeParse(records[position]);
          if (!parsed.success) {
            runs.push({ runId: hit.member, approvalCalls: [] });
            continue;
          }
          const { channel, requester, approvals } = parsed.data;
          runs.push({ runId: hit.member, channel, requester: requester.id, approvalCalls: approvals.map((approval) => approval.callId) });
        }
        if (hits.length < CHUNK) return runs;
        after = hits.at(-1);
      }
    },

    async noteVote(runId, personId, rating) {
      const loaded = await this.load(runId);
      if (loaded.kind !== "found") return false;
      await this.save({ ...loaded.record, votes: { ...loaded.record.votes, [personId]: rating } }, loaded.record);
      return true;
    },

    async sweep(now) {
      const oldest = now - keepMs;
      let removed = 0;
      // By age, then by count: each removal reads the summary to reach every index that lists the run.
      for (;;) {
        const expired = await store.indexRange(ALL_RUNS, { limit: SWEEP_BATCH, order: "asc", max: oldest - 1 });
        if (expired.length === 0) break;
        await remove(expired.map((hit) => hit.member));
        removed += expired.length;
      }
      await store.trimIndex(CONVERSATIONS, oldest);
      for (let excess = (await store.indexSize(ALL_RUNS)) - retention.max; excess > 0; excess -= SWEEP_BATCH) {
        const victims = await store.indexRange(ALL_RUNS, { limit: Math.min(excess, SWEEP_BATCH), order: "asc" });
        if (victims.length === 0) break;
        await remove(victims.map((hit) => hit.member));
        removed += victims.length;
      }
      return removed;
    },
  };
}
