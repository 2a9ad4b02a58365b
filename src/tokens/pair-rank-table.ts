// Which token two adjacent tokens merge into, found by numbers alone. The merge asks this for
// every adjacent pair, most of them never seen before and most not a token (two CJK characters
// side by side): joining their bytes into a string key for js-tiktoken's rankMap cost most of a
// megabyte's count. Here each token keeps a polynomial hash of its bytes, so the hash of a
// concatenation comes from the two parts' hashes in O(1), and an open-addressing table of the
// vocabulary's hashes answers; a hit is confirmed byte by byte, so a collision can't change a count.
import type { PairRank } from "./byte-pair-merge.js";
import type { Vocabulary } from "./vocabulary.js";

const MULTIPLIER = 0x01000193;
const NO_TOKEN = -1;

const mix = (hash: number) => Math.imul(hash ^ (hash >>> 15), 0x2c1b3c6d) ^ (hash >>> 12);
/** One bit per 2^FILTER_LOG2 hashes (512 KB, in cache): most pairs are no token, and the bit says so without touching the table. */
const FILTER_LOG2 = 22;
const FILTER_MASK = (1 << FILTER_LOG2) - 1;
/** The filter's bit for a hash: other bits of the mix than the slot's. */
const filterBit = (hash: number) => Math.imul(hash ^ (hash >>> 16), 0x7feb352d) >>> (32 - FILTER_LOG2);

/** Tokens hashed between yields (a few milliseconds). */
const TOKENS_PER_YIELD = 2_000;

/**
 * Builds the table from the vocabulary, yielding every TOKENS_PER_YIELD tokens (~0.1 s in all
 * for o200k_base, built in slices with the vocabulary). What one lookup reads sits side by side
 * (a token's hash, length and offset; a slot's hash and rank), because a count of text never
 * seen before is bound by cache misses; the bytes are the vocabulary's own.
 */
export function* buildPairRankTable(vocabulary: Vocabulary): Generator<void, PairRank> {
  const { size, spans, bytes: flat } = vocabulary;
  let maxLength = 0;
  let tokens = 0;
  for (let rank = 0; rank < size; rank++) {
    const length = spans[2 * rank + 1]!;
    maxLength = Math.max(maxLength, length);
    if (length > 0) tokens++;
  }
  /** Per rank: hash, length, offset into `flat`. */
  const info = new Int32Array(3 * size);
  // Powers up to twice the longest token: a pair longer than any token is refused before its hash is used.
  const powers = new Int32Array(2 * maxLength + 1);
  powers[0] = 1;
  for (let length = 1; length < powers.length; length++) powers[length] = Math.imul(powers[length - 1]!, MULTIPLIER);
  let slotsLog2 = 1;
  while (1 << slotsLog2 < 2 * tokens) slotsLog2++;
  const mask = (1 << slotsLog2) - 1;
  /** Per slot: hash, rank (NO_TOKEN when empty). */
  const slots = new Int32Array(2 * (mask + 1));
  for (let slot = 0; slot <= mask; slot++) slots[2 * slot + 1] = NO_TOKEN;
  const filter = new Int32Array((FILTER_MASK + 1) >>> 5);
  for (let rank = 0; rank < size; rank++) {
    const offset = spans[2 * rank]!;
    const length = spans[2 * rank + 1]!;
    // A rank without bytes is no token: it stays out of the table, and its length 0 matches no pair.
    if (length === 0) continue;
    let hash = 0;
    for (let index = offset; index < offset + length; index++) hash = (Math.imul(hash, MULTIPLIER) + flat[index]!) | 0;
    info[3 * rank] = hash;
    info[3 * rank + 1] = length;
    info[3 * rank + 2] = offset;
    const bit = filterBit(hash);
    filter[bit >>> 5]! |= 1 << (bit & 31);
    let slot = mix(hash) & mask;
    while (slots[2 * slot + 1] !== NO_TOKEN) slot = (slot + 1) & mask;
    slots[2 * slot] = hash;
    slots[2 * slot + 1] = rank;
    if (rank % TOKENS_PER_YIELD === TOKENS_PER_YIELD - 1) yield;
  }

  /** Whether the candidate's bytes are the left token's followed by the right one's (lengths already match). */
  const joins = (candidate: number, left: number, right: number): boolean => {
    const whole = info[3 * candidate + 2]!;
    const head = info[3 * left + 2]!;
    const headLength = info[3 * left + 1]!;
    for (let index = 0; index < headLength; index++) if (flat[whole + index] !== flat[head + index]) return false;
    const tail = info[3 * right + 2]!;
    const tailLength = info[3 * right + 1]!;
    for (let index = 0; index < tailLength; index++) if (flat[whole + headLength + index] !== flat[tail + index]) return false;
    return true;
  };

  return (left, right) => {
    const rightLength = info[3 * right + 1]!;
    const length = info[3 * left + 1]! + rightLength;
    if (length > maxLength) return NO_TOKEN;
    const hash = (Math.imul(info[3 * left]!, powers[rightLength]!) + info[3 * right]!) | 0;
    const bit = filterBit(hash);
    if ((filter[bit >>> 5]! & (1 << (bit & 31))) === 0) return NO_TOKEN;
    for (let slot = mix(hash) & mask; ; slot = (slot + 1) & mask) {
      const candidate = slots[2 * slot + 1]!;
      if (candidate === NO_TOKEN) return NO_TOKEN;
      if (slots[2 * slot] === hash && info[3 * candidate + 1] === length && joins(candidate, left, right)) return candidate;
    }
  };
}
