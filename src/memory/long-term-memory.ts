// Long-term memory: facts worth keeping about a conversation, written deduplicated and read
// back by relevance. One record per conversation holds all its facts as JSON text; a process
// keeps the parsed facts (and their n-gram features) for the exact text it last saw, so a
// read costs one string comparison unless another process changed the record. The record is
// rewritten on every change, so it is compact: one tuple per fact, short random ids.
import { randomBytes } from "node:crypto";
import { z } from "zod";
import type { Logger } from "../logger.js";
import { decideFactWrite, rankFacts } from "./fact-similarity.js";
import { createRunQueue } from "./run-queue.js";
import type { Fact, KeyValueStore } from "./types.js";

export interface LongTermMemory {
  /** Writes each candidate unless it is already known; a near duplicate replaces the older fact. */
  remember(conversationKey: string, candidates: readonly string[]): Promise<RememberResult>;
  /** The facts most relevant to `query` (recency breaks ties and fills the list); counts only the relevant ones as used. */
  recall(conversationKey: string, query: string, limit: number): Promise<Fact[]>;
  /** Every fact of the conversation, oldest first. */
  list(conversationKey: string): Promise<Fact[]>;
  /** Deletes every fact of the conversation; returns how many there were. */
  forget(conversationKey: string): Promise<number>;
  /** Deletes one fact; the fact deleted, or undefined when the conversation has no such fact (any more). */
  forgetFact(conversationKey: string, factId: string): Promise<Fact | undefined>;
}

export interface RememberResult {
  readonly added: number;
  readonly replaced: number;
  readonly skipped: number;
}

export interface LongTermMemoryOptions {
  readonly maxFacts: number;
  readonly logger: Logger;
  readonly clock?: () => number;
}

/** How a fact is stored: [id, text, createdAt, lastUsedAt, uses]. */
const storedFactSchema = z.tuple([
  z.string().min(1),
  z.string().min(1),
  z.number().finite(),
  z.number().finite(),
  z.number().int().nonnegative(),
]);

/** Conversations whose parsed facts stay in process memory. */
const CACHED_CONVERSATIONS = 128;

export function factsKey(conversationKey: string): string {
  return `facts:${conversationKey}`;
}

export function createLongTermMemory(store: KeyValueStore, options: LongTermMemoryOptions): LongTermMemory {
  const { maxFacts, logger } = options;
  if (!Number.isInteger(maxFacts) || maxFacts < 1) throw new RangeError(`maxFacts must be a whole number of at least 1 (got ${maxFacts})`);
  const clock = options.clock ?? Date.now;
  // Every read-modify-write of one conversation runs alone, so concurrent calls lose nothing.
  const lanes = createRunQueue(Number.POSITIVE_INFINITY);
  const cache = new Map<string, { readonly raw: string; readonly facts: readonly Fact[] }>();

  const remembered = (conversationKey: string, raw: string, facts: readonly Fact[]): void => {
    cache.delete(conversationKey);
    cache.set(conversationKey, { raw, facts });
    if (cache.size > CACHED_CONVERSATIONS) cache.delete(cache.keys().next().value as string);
  };

  /** `read`: the record's read, already started by a task that runs next in its lane (see recall). */
  const load = async (conversationKey: string, read = store.get(factsKey(conversationKey))): Promise<readonly Fact[]> => {
    const raw = await read;
    if (raw === undefined) return [];
    const cached = cache.get(conversationKey);
    if (cached !== undefined && cached.raw === raw) return cached.facts;
    const facts = parseFacts(raw, conversationKey, logger, cached?.facts ?? []);
    if (typeof raw === "string") remembered(conversationKey, raw, facts);
    return facts;
  };

  const save = async (conversationKey: string, facts: readonly Fact[]): Promise<void> => {
    const raw = encodeFacts(facts);
    await store.set(factsKey(conversationKey), raw);
    remembered(conversationKey, raw, facts);
  };

  return {
    remember(conversationKey, candidates) {
      return lanes.run(conversationKey, async () => {
        const texts = candidates.map((text) => text.trim()).filter((text) => text !== "");
        let facts = [...(await load(conversationKey))];
        const touched = new Set<string>();
        const result = { added: 0, replaced: 0, skipped: 0 };
        for (const text of texts) {
          const decision = decideFactWrite(facts, text);
          const now = clock();
          if (decision.kind === "skip") {
            result.skipped += 1;
          } else if (decision.kind === "replace") {
            facts = facts.map((fact) => (fact.id === decision.replaces ? { ...fact, text, createdAt: now, lastUsedAt: now } : fact));
            touched.add(decision.replaces);
            result.replaced += 1;
          } else {
            const id = randomBytes(9).toString("base64url");
            facts.push({ id, text, createdAt: now, lastUsedAt: now, uses: 0 });
            touched.add(id);
            result.added += 1;
          }
        }
        if (touched.size > 0) await save(conversationKey, withinCap(facts, maxFacts, touched));
        return result;
      });
    },

    recall(conversationKey, query, limit) {
      // With nothing of this conversation in its lane, this task runs next and nothing here writes the record before it:
      // its read starts now, next to the run's other reads (history), instead of a few turns later behind every other
      // conversation's (a burst of new runs then gets each run's context in turn, not all of them at the end).
      const read = lanes.busy(conversationKey) ? undefined : store.get(factsKey(conversationKey));
      // Awaited by the task a few microtasks from now; this only keeps a failure from counting as unhandled meanwhile.
      read?.catch(() => undefined);
      return lanes.run(conversationKey, async () => {
        const facts = await load(conversationKey, read);
        // A conversation with nothing remembered (most of them) skips preparing the query for comparison.
        const chosen = facts.length === 0 ? [] : rankFacts(facts, query, limit);
        const now = clock();
        // A fact that only fills the list was not used: counting it would keep unrelated facts from eviction.
        const used = new Map(
          chosen.filter(({ relevant }) => relevant).map(({ fact }) => [fact.id, { ...fact, uses: fact.uses + 1, lastUsedAt: now }]),
        );
        if (used.size > 0) {
          try {
            await save(
              conversationKey,
              facts.map((fact) => used.get(fact.id) ?? fact),
            );
          } catch (error) {
            logger.warn({ conversationKey, err: error }, "Could not record which remembered facts were used");
          }
        }
        return chosen.map(({ fact }) => used.get(fact.id) ?? fact);
      });
    },

    list(conversationKey) {
      return lanes.run(conversationKey, async () => [...(await load(conversationKey))].sort((a, b) => a.createdAt - b.createdAt));
    },

    forgetFact(conversationKey, factId) {
      return lanes.run(conversationKey, async () => {
        const facts = await load(conversationKey);
        const gone = facts.find((fact) => fact.id === factId);
        if (gone)
          await save(
            conversationKey,
            facts.filter((fact) => fact !== gone),
          );
        return gone;
      });
    },

    forget(conversationKey) {
      return lanes.run(conversationKey, async () => {
        const facts = await load(conversationKey);
        await store.delete(factsKey(conversationKey));
        cache.delete(conversationKey);
        return facts.length;
      });
    },
  };
}

/** Drops the least used facts, oldest first, sparing the ones just written while others can go. */
function withinCap(facts: readonly Fact[], maxFacts: number, justWritten: ReadonlySet<string>): Fact[] {
  const excess = facts.length - maxFacts;
  if (excess <= 0) return [...facts];
  const evictionOrder = [...facts].sort(
    (a, b) =>
      Number(justWritten.has(a.id)) - Number(justWritten.has(b.id)) ||
      a.uses - b.uses ||
      a.lastUsedAt - b.lastUsedAt ||
      a.createdAt - b.createdAt,
  );
  const evicted = new Set(evictionOrder.slice(0, excess).map((fact) => fact.id));
  return facts.filter((fact) => !evicted.has(fact.id));
}

// Each fact's JSON is kept per (immutable) fact object, so a write re-encodes only what changed.
const encodedFacts = new WeakMap<Fact, string>();

/** The stored form of a conversation's facts (exported for tests and benchmarks that seed a store). */
export function encodeFacts(facts: readonly Fact[]): string {
  const parts = facts.map((fact) => {
    let encoded = encodedFacts.get(fact);
    if (encoded === undefined) {
      encoded = JSON.stringify([fact.id, fact.text, fact.createdAt, fact.lastUsedAt, fact.uses]);
      encodedFacts.set(fact, encoded);
    }
    return encoded;
  });
  return `[${parts.join(",")}]`;
}

/** Unchanged facts keep their previous objects, and with them their cached n-grams and JSON. */
function parseFacts(raw: unknown, conversationKey: string, logger: Logger, previous: readonly Fact[]): Fact[] {
  let items: unknown;
  try {
    items = typeof raw === "string" ? JSON.parse(raw) : undefined;
  } catch {
    items = undefined;
  }
  if (!Array.isArray(items)) {
    logger.warn({ conversationKey }, "Skipped stored facts that are not a JSON list; the conversation starts with no facts");
    return [];
  }
  const known = new Map(previous.map((fact) => [fact.id, fact]));
  const facts: Fact[] = [];
  for (const [index, item] of items.entries()) {
    const parsed = storedFactSchema.safeParse(item);
    if (!parsed.success) {
      logger.warn({ conversationKey, index, issues: parsed.error.issues }, "Skipped a stored fact that failed validation");
      continue;
    }
    const [id, text, createdAt, lastUsedAt, uses] = parsed.data;
    const same = known.get(id);
    const unchanged = same?.text === text && same.createdAt === createdAt && same.lastUsedAt === lastUsedAt && same.uses === uses;
    facts.push(unchanged ? same : { id, text, createdAt, lastUsedAt, uses });
  }
  return facts;
}
