// Pure decisions for long-term facts: when two facts say the same thing, and which stored
// facts matter for a new message. Similarity averages two Jaccard indexes: word uni+bigrams
// (each Chinese/Japanese character counts as a word) and character bigrams, so scripts
// written without spaces compare as well as English does.
import type { Fact } from "./types.js";

/** Similarity at or above which a new fact replaces the most similar stored one. */
export const NEAR_DUPLICATE_THRESHOLD = 0.65;
/**
 * Similarity to the query from which a recalled fact counts as relevant (and as used). Below it
 * the shared n-grams are noise: a common word, or letter pairs every English sentence has.
 */
export const RELEVANCE_THRESHOLD = 0.1;

export type FactWriteDecision =
  | { readonly kind: "skip"; readonly duplicateOf: string }
  | { readonly kind: "replace"; readonly replaces: string }
  | { readonly kind: "add" };

const APOSTROPHES = /['\u2019\u02bc]/gu;
const PUNCTUATION = /\p{P}/gu;
const WHITESPACE = /\s+/gu;
const NO_SPACE_SCRIPTS = "\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}";
const TOKEN = new RegExp(`[${NO_SPACE_SCRIPTS}]|[^\\s${NO_SPACE_SCRIPTS}]+`, "gu");
/**
 * Chinese degree adverbs and negation particles stay out of the n-grams (not out of the exact
 * comparison). In a short sentence one such character shifts a third of the bigrams, so
 * "我很喜欢喝咖啡" would not match "我喜欢喝咖啡" while "用户很喜欢喝咖啡" matched its twin. Without
 * them "我不喜欢喝咖啡" is a near duplicate of "我喜欢喝咖啡" whatever the subject: the newer
 * statement replaces the one it contradicts.
 */
const CJK_MODIFIERS = /非常|十分|特别|很|挺|不|没有|没/gu;

/** NFKC, lower case, punctuation gone (CJK punctuation too), whitespace collapsed. */
export function normalizeFact(text: string): string {
  return text.normalize("NFKC").toLowerCase().replace(APOSTROPHES, "").replace(PUNCTUATION, " ").replace(WHITESPACE, " ").trim();
}

/** 1 for the same normalised text, 0 for nothing in common. */
export function factSimilarity(a: string, b: string): number {
  return similarityOf(probeFor(a), featuresOf(b));
}

/** Exact duplicate (after normalisation): skip; near duplicate: replace the most similar; else add. */
export function decideFactWrite(
  existing: readonly Fact[],
  candidate: string,
  threshold: number = NEAR_DUPLICATE_THRESHOLD,
): FactWriteDecision {
  const probe = probeFor(candidate);
  let best: { readonly id: string; readonly score: number; readonly createdAt: number } | undefined;
  for (const fact of existing) {
    const features = cachedFeatures(fact);
    if (features.normalized === probe.features.normalized) return { kind: "skip", duplicateOf: fact.id };
    const score = similarityOf(probe, features);
    // Among equally similar entries the oldest is replaced.
    if (best === undefined || score > best.score || (score === best.score && fact.createdAt < best.createdAt)) {
      best = { id: fact.id, score, createdAt: fact.createdAt };
    }
  }
  return best !== undefined && best.score >= threshold ? { kind: "replace", replaces: best.id } : { kind: "add" };
}

export interface RankedFact {
  readonly fact: Fact;
  /** Similar enough to the query to count as recalled for it, not just as filling the list. */
  readonly relevant: boolean;
}

/** The `limit` facts most similar to `query`, ties broken by the most recently used or written. */
export function rankFacts(facts: readonly Fact[], query: string, limit: number): RankedFact[] {
  if (limit <= 0) return [];
  const probe = probeFor(query);
  const top: Ranked[] = [];
  for (const fact of facts) {
    const entry = { fact, score: similarityOf(probe, cachedFeatures(fact)) };
    let at = top.length;
    while (at > 0 && ranksBefore(entry, top[at - 1] as Ranked)) at -= 1;
    if (at < limit) {
      top.splice(at, 0, entry);
      if (top.length > limit) top.pop();
    }
  }
  return top.map(({ fact, score }) => ({ fact, relevant: score >= RELEVANCE_THRESHOLD }));
}

interface Ranked {
  readonly fact: Fact;
  readonly score: number;
}

function ranksBefore(a: Ranked, b: Ranked): boolean {
  if (a.score !== b.score) return a.score > b.score;
  if (a.fact.lastUsedAt !== b.fact.lastUsedAt) return a.fact.lastUsedAt > b.fact.lastUsedAt;
  return a.fact.createdAt > b.fact.createdAt;
}

// ---- Features ----
// N-grams are kept as unique 32-bit hashes. The text being compared against many facts gets
// a probe: its hashes in a set behind a small bitmap, so scanning a stored fact is a run of
// bit tests that almost always miss. A hash collision can only nudge one score up a little,
// and is vanishingly rare at these set sizes.

interface Features {
  readonly normalized: string;
  /** Unique hashes of the word unigrams and bigrams. */
  readonly words: Int32Array;
  /** Unique hashes of the character bigrams. */
  readonly bigrams: Int32Array;
}

interface GramSet {
  readonly size: number;
  readonly bitmap: Uint32Array;
  readonly hashes: ReadonlySet<number>;
}

interface Probe {
  readonly features: Features;
  readonly words: GramSet;
  readonly bigrams: GramSet;
}

const BITMAP_BITS = 4_096;

// Features are computed once per fact object; facts are immutable, so the cache stays true.
const featureCache = new WeakMap<Fact, Features>();

function cachedFeatures(fact: Fact): Features {
  let features = featureCache.get(fact);
  if (features === undefined) {
    features = featuresOf(fact.text);
    featureCache.set(fact, features);
  }
  return features;
}

function featuresOf(text: string): Features {
  const normalized = normalizeFact(text);
  const core = normalized.replace(CJK_MODIFIERS, "");
  const words: number[] = [];
  let previousWord = 0;
  for (const [index, token] of (core.match(TOKEN) ?? []).entries()) {
    const hash = hashOf(token);
    words.push(hash);
    if (index > 0) words.push(pairHash(previousWord, hash));
    previousWord = hash;
  }
  const bigrams: number[] = [];
  let previousChar = -1;
  for (const char of core) {
    if (char === " ") continue;
    const code = char.codePointAt(0) as number;
    if (previousChar >= 0) bigrams.push(pairHash(previousChar, code));
    previousChar = code;
  }
  // A single character is its own "bigram", so one-character facts still compare.
  if (bigrams.length === 0 && previousChar >= 0) bigrams.push(pairHash(previousChar, -1));
  return { normalized, words: uniqueOf(words), bigrams: uniqueOf(bigrams) };
}

function probeFor(text: string): Probe {
  const features = featuresOf(text);
  return { features, words: gramSetOf(features.words), bigrams: gramSetOf(features.bigrams) };
}

function gramSetOf(hashes: Int32Array): GramSet {
  const bitmap = new Uint32Array(BITMAP_BITS / 32);
  for (const hash of hashes) {
    const bit = hash & (BITMAP_BITS - 1);
    bitmap[bit >>> 5] = (bitmap[bit >>> 5] as number) | (1 << (bit & 31));
  }
  return { size: hashes.length, bitmap, hashes: new Set(hashes) };
}

function similarityOf(probe: Probe, features: Features): number {
  if (probe.features.normalized === features.normalized) return features.normalized === "" ? 0 : 1;
  return (jaccard(probe.words, features.words) + jaccard(probe.bigrams, features.bigrams)) / 2;
}

function jaccard(wanted: GramSet, hashes: Int32Array): number {
  if (wanted.size === 0 || hashes.length === 0) return 0;
  const { bitmap } = wanted;
  let shared = 0;
  for (let i = 0; i < hashes.length; i += 1) {
    const hash = hashes[i] as number;
    const bit = hash & (BITMAP_BITS - 1);
    if (((bitmap[bit >>> 5] as number) & (1 << (bit & 31))) !== 0 && wanted.hashes.has(hash)) shared += 1;
  }
  return shared / (wanted.size + hashes.length - shared);
}

/** FNV-1a over UTF-16 code units, as a signed 32-bit integer. */
function hashOf(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash | 0;
}

function uniqueOf(hashes: readonly number[]): Int32Array {
  const sorted = Int32Array.from(hashes).sort();
  let kept = 0;
  for (let i = 0; i < sorted.length; i += 1) {
    if (i === 0 || sorted[i] !== sorted[i - 1]) {
      sorted[kept] = sorted[i] as number;
      kept += 1;
    }
  }
  return sorted.subarray(0, kept);
}

/** An ordered pair of hashes or code points as one well-mixed 32-bit hash. */
function pairHash(first: number, second: number): number {
  let hash = Math.imul(first ^ 0x9e3779b9, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash ^ second, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash | 0;
}
