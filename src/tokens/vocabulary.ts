import { MalformedRanks } from "../errors.js";
// Each token's bytes by rank, parsed from js-tiktoken's rank file: lines of
// `<name> <first rank> <base64 token>…`, each token one rank above the one before. All the
// bytes sit in one array and each rank has an (offset, length) span: for o200k_base 1.4 MB of
// bytes and 1.6 MB of spans, where js-tiktoken's one object per token takes tens of MB.

export interface Vocabulary {
  /** The highest rank plus one. */
  readonly size: number;
  /** Per rank: the offset of its bytes in `bytes`, then their length (0: no token has that rank). */
  readonly spans: Int32Array;
  readonly bytes: Uint8Array;
}

/** Far above any vocabulary (o200k_base has 200,000 ranks): a rank beyond it means the file is not a rank file. */
const MAX_RANKS = 1 << 22;
/** Tokens parsed between yields (well under a millisecond). */
const TOKENS_PER_YIELD = 5_000;
const PADDING = 61; // "="
const SEXTETS = new Int8Array(128).fill(-1);
for (const [value, letter] of [..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"].entries())
  SEXTETS[letter.charCodeAt(0)] = value;

/** Where the base64 of a token ends without its padding. */
function unpaddedEnd(text: string, start: number, end: number): number {
  while (end > start && text.charCodeAt(end - 1) === PADDING) end--;
  return end;
}

/** Decodes text[start, end) (base64 without padding) into `out` at `at`; how many bytes, or -1 when it is not base64. */
function decodeBase64(text: string, start: number, end: number, out: Uint8Array, at: number): number {
  let bits = 0;
  let pending = 0;
  let written = 0;
  for (let index = start; index < end; index++) {
    const code = text.charCodeAt(index);
    const sextet = code < 128 ? SEXTETS[code]! : -1;
    if (sextet < 0) return -1;
    bits = (bits << 6) | sextet;
    pending += 6;
    if (pending >= 8) {
      pending -= 8;
      out[at + written++] = (bits >>> pending) & 0xff;
    }
  }
  return written;
}

/** Calls `visit` with each token's rank and where its base64 (unpadded) is in the file, yielding every TOKENS_PER_YIELD tokens. */
function* eachToken(text: string, visit: (rank: number, start: number, end: number) => void): Generator<void, void> {
  let seen = 0;
  let lineStart = 0;
  while (lineStart < text.length) {
    let lineEnd = text.indexOf("\n", lineStart);
    if (lineEnd < 0) lineEnd = text.length;
    const nameEnd = text.indexOf(" ", lineStart);
    const offsetEnd = text.indexOf(" ", nameEnd + 1);
    if (nameEnd >= 0 && nameEnd < lineEnd && offsetEnd > nameEnd) {
      const firstRank = text.slice(nameEnd + 1, Math.min(offsetEnd, lineEnd));
      if (!/^\d+$/.test(firstRank)) throw new MalformedRanks(`a line's first rank is "${firstRank.slice(0, 20)}"`);
      let rank = Number(firstRank);
      for (let start = Math.min(offsetEnd, lineEnd) + 1; start < lineEnd; ) {
        let end = text.indexOf(" ", start);
        if (end < 0 || end > lineEnd) end = lineEnd;
        if (end > start) {
          visit(rank++, start, unpaddedEnd(text, start, end));
          if (++seen % TOKENS_PER_YIELD === 0) yield;
        }
        start = end + 1;
      }
    }
    lineStart = lineEnd + 1;
  }
}

/** Two passes over the file: the first sizes the arrays, the second decodes into them. */
export function* parseVocabulary(text: string): Generator<void, Vocabulary> {
  let size = 0;
  let totalBytes = 0;
  yield* eachToken(text, (rank, start, end) => {
    if (rank >= MAX_RANKS) throw new MalformedRanks(`a token of rank ${rank}`);
    size = Math.max(size, rank + 1);
    totalBytes += ((end - start) * 6) >>> 3;
  });
  const spans = new Int32Array(2 * size);
  const bytes = new Uint8Array(totalBytes);
  let offset = 0;
  yield* eachToken(text, (rank, start, end) => {
    const written = decodeBase64(text, start, end, bytes, offset);
    if (written < 0) throw new MalformedRanks(`the token of rank ${rank} is not base64`);
    spans[2 * rank] = offset;
    spans[2 * rank + 1] = written;
    offset += written;
  });
  return { size, spans, bytes };
}
