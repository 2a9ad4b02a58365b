// An encoding's ranks (js-tiktoken's rank files) behind a counting-first interface whose cost
// is bounded by the input's length. The text is split with the encoding's own pattern; each
// piece is encoded by an O(n log n) byte-pair merge (byte-pair-merge.ts) instead of
// js-tiktoken's, which is quadratic or worse in a piece's length (3,000 emoji took 10 s, a
// 200,000-letter piece over 10 minutes). Pieces longer than MAX_CHUNK_CHARS are cut into chunks.
// A cut changes the merges near it, mostly to more tokens but sometimes to one fewer ("a"×1024 +
// "zkvanie"), so each cut adds CUT_MARGIN to the count: it may only over-estimate (by under 1 %:
// a chunk is hundreds of tokens). Counts per piece are cached, so text made of pieces seen
// before costs no merge at all. The merge looks pairs up by numbers, not by strings of bytes
// (pair-rank-table.ts).
import { createRequire } from "node:module";
import type { TiktokenBPE } from "js-tiktoken/lite";
import { bytePairEncode, type PairRank } from "./byte-pair-merge.js";
import { startEncoderBuild, type EncoderBuild, type EncoderTablesBuilt } from "./tokenizer-tables.js";
import { TwoGenerationCache } from "./two-generation-cache.js";
import type { Vocabulary } from "./vocabulary.js";

export type EncodingName = "o200k_base" | "cl100k_base";

const require = createRequire(import.meta.url);
const RANK_MODULES: Record<EncodingName, string> = {
  o200k_base: "js-tiktoken/ranks/o200k_base",
  cl100k_base: "js-tiktoken/ranks/cl100k_base",
};
/** Loaded on first use: each table is ~2 MB of JavaScript that a process not counting in that encoding never parses. */
const ranksOf = (encoding: EncodingName): TiktokenBPE => require(RANK_MODULES[encoding]) as TiktokenBPE;
/** Long pieces are encoded in chunks of this many UTF-16 units (~500–2,000 tokens each). */
export const MAX_CHUNK_CHARS = 1_024;
/** Added per cut, so that a count is never below the exact one. */
const CUT_MARGIN = 1;
/** The yielding variants hand the event loop back once a slice took this long (plus at most one segment). */
const SLICE_MS = 8;
const PIECE_CACHE_ENTRIES = 50_000;
/** Per generation; with UTF-16 keys the piece cache holds at most ~16 MB of text. */
const PIECE_CACHE_CHARS = 4_000_000;
/** A UTF-16 unit is at most 3 UTF-8 bytes (a surrogate pair is 4 bytes for 2 units). */
const MAX_CHUNK_BYTES = 3 * MAX_CHUNK_CHARS;
const REPLACEMENT_CHARACTER = /\uFFFD+$/;

type Visit = (unit: string, afterCut: boolean) => boolean;

export type Cut =
  /** `count`: the text was encoded whole on the way, so its count comes free. */
  { readonly text: string; readonly truncated: false; readonly count?: number } | { readonly text: string; readonly truncated: true };

/** The text is split with the pattern a segment at a time, so that one regex match never runs over a whole megabyte. */
const SEGMENT_CHARS = 8 * MAX_CHUNK_CHARS;

/** `end`, moved back one when it would fall between the two halves of a surrogate pair. */
function wholeCharacters(text: string, end: number): number {
  if (end >= text.length) return text.length;
  const unit = text.charCodeAt(end - 1);
  return unit >= 0xd800 && unit <= 0xdbff ? end - 1 : end;
}

/**
 * Where the segment that starts at `start` ends: after a line break followed by a non-space,
 * where both encodings' patterns always end a piece (no count changes), when there is one in
 * the window's second half; else at the window's end, which is a cut.
 */
function segmentEnd(text: string, start: number): { readonly end: number; readonly cut: boolean } {
  const limit = start + SEGMENT_CHARS;
  if (limit >= text.length) return { end: text.length, cut: false };
  const lineBreak = text.lastIndexOf("\n", limit - 2);
  // Not before "/": o200k's punctuation pieces may run on over line breaks into slashes.
  if (lineBreak >= start + SEGMENT_CHARS / 2 && /[^\s/]/.test(text[lineBreak + 1]!)) return { end: lineBreak + 1, cut: false };
  return { end: wholeCharacters(text, limit), cut: true };
}

function finish<T>(work: Generator<void, T>): T {
  for (;;) {
    const step = work.next();
    if (step.done) return step.value;
  }
}

async function finishYielding<T>(work: Generator<void, T>): Promise<T> {
  for (;;) {
    const step = work.next();
    if (step.done) return step.value;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

export class Tokenizer {
  private readonly pattern: RegExp;
  private readonly vocabulary: Vocabulary;
  private readonly byteRanks: Int32Array;
  private readonly pairRank: PairRank;
  private readonly utf8 = new TextEncoder();
  private readonly fromUtf8 = new TextDecoder();
  private readonly scratch = new Uint8Array(MAX_CHUNK_BYTES);
  private readonly pieces = new TwoGenerationCache<number>(PIECE_CACHE_ENTRIES, PIECE_CACHE_CHARS);

  private constructor(ranks: TiktokenBPE, { vocabulary, byteRanks, pairRank }: EncoderTablesBuilt) {
    this.pattern = new RegExp(ranks.pat_str, "gu");
    this.vocabulary = vocabulary;
    this.byteRanks = byteRanks;
    this.pairRank = pairRank;
  }

  private static readonly loaded = new Map<EncodingName, Tokenizer>();

  /** The tables take a few hundred milliseconds and ~15 MB to build: once per encoding per process, on first use. */
  static for(encoding: EncodingName): Tokenizer {
    let tokenizer = Tokenizer.loaded.get(encoding);
    if (!tokenizer) {
      // A count that can't wait finishes the build under way (or the whole build) now.
      const ranks = ranksOf(encoding);
      const build = Tokenizer.building.get(encoding) ?? startEncoderBuild(ranks);
      tokenizer = new Tokenizer(ranks, build.finishNow());
      Tokenizer.loaded.set(encoding, tokenizer);
    }
    return tokenizer;
  }

  private static readonly building = new Map<EncodingName, EncoderBuild>();
  private static readonly preparing = new Map<EncodingName, Promise<void>>();

  /** Diagnostic: the encodings whose tables this process has built or is building (~15 MB of RSS each). */
  static encodingsWithTables(): EncodingName[] {
    return [...new Set([...Tokenizer.loaded.keys(), ...Tokenizer.building.keys()])];
  }

  /**
   * Builds the tables a slice at a time, so nothing waits behind the build (see
   * tokenizer-tables.ts); afterwards `for` returns at once. Once per encoding, however often called.
   */
  static prepare(encoding: EncodingName): Promise<void> {
    if (Tokenizer.loaded.has(encoding)) return Promise.resolve();
    let preparing = Tokenizer.preparing.get(encoding);
    if (!preparing) {
      preparing = (async () => {
        const ranks = ranksOf(encoding);
        const build = startEncoderBuild(ranks);
        Tokenizer.building.set(encoding, build);
        const built = await build.done.finally(() => Tokenizer.building.delete(encoding));
        // A count that could not wait finished this same build and made the tokenizer already.
        if (!Tokenizer.loaded.has(encoding)) Tokenizer.loaded.set(encoding, new Tokenizer(ranks, built));
      })();
      Tokenizer.preparing.set(encoding, preparing);
    }
    return preparing;
  }

  /**
   * The exact tokens, whole pieces and no cache: the reference the bounded count is measured
   * against. O(n log n) in the longest piece. Control tokens such as <|endoftext|> in people's or
   * tools' text count as plain text, as the API treats them.
   */
  encode(text: string): number[] {
    const out: number[] = [];
    for (const [piece] of text.matchAll(this.pattern)) bytePairEncode(this.utf8.encode(piece), this.byteRanks, this.pairRank, out);
    return out;
  }

  /** Tokens as `encode` makes them; a rank that is no token throws a RangeError. */
  decode(tokens: readonly number[]): string {
    const { size, spans, bytes } = this.vocabulary;
    let length = 0;
    for (const token of tokens) {
      if (!Number.isInteger(token) || token < 0 || token >= size || spans[2 * token + 1] === 0)
        throw new RangeError(`${token} is not a token of this encoding`);
      length += spans[2 * token + 1]!;
    }
    // Byte by byte: a token is a few bytes, and a view per token would cost more than the copy.
    const out = new Uint8Array(length);
    let at = 0;
    for (const token of tokens) {
      const offset = spans[2 * token]!;
      const end = offset + spans[2 * token + 1]!;
      for (let index = offset; index < end; index++) out[at++] = bytes[index]!;
    }
    return this.fromUtf8.decode(out);
  }

  /** At most ~2 % over the exact count (in practice well under 1 %), never under it. */
  count(text: string): number {
    return text.length <= SEGMENT_CHARS ? this.countShort(text) : finish(this.counting(text));
  }

  /** As `count`, giving the event loop back between slices of the text. */
  countYielding(text: string): Promise<number> {
    return finishYielding(this.counting(text));
  }

  /** Cuts text to at most maxTokens tokens, encoding only the prefix it keeps (plus one piece or chunk). */
  cut(text: string, maxTokens: number): Cut {
    return finish(this.cutting(text, maxTokens));
  }

  cutYielding(text: string, maxTokens: number): Promise<Cut> {
    return finishYielding(this.cutting(text, maxTokens));
  }

  private *counting(text: string): Generator<void, number> {
    let total = 0;
    yield* this.walk(text, (unit, afterCut) => {
      total += this.countUnit(unit) + (afterCut ? CUT_MARGIN : 0);
      return true;
    });
    return total;
  }

  /** The common case, a message of a few kilobytes: one segment, without the generator's or the visitor's overhead. */
  private countShort(text: string): number {
    let total = 0;
    for (const [piece] of text.matchAll(this.pattern))
      total += piece.length <= MAX_CHUNK_CHARS ? this.countUnit(piece) : finish(this.counting(piece));
    return total;
  }

  private *cutting(text: string, maxTokens: number): Generator<void, Cut> {
    const tokens: number[] = [];
    let margins = 0;
    yield* this.walk(text, (unit, afterCut) => {
      this.encodeUnit(unit, tokens);
      if (afterCut) margins += CUT_MARGIN;
      return tokens.length + margins <= maxTokens;
    });
    if (tokens.length + margins <= maxTokens) return { text, truncated: false, count: tokens.length + margins };
    // A cut inside a multi-byte character decodes to U+FFFD: drop the half character.
    return { text: this.decode(tokens.slice(0, maxTokens)).replace(REPLACEMENT_CHARACTER, ""), truncated: true };
  }

  /**
   * Hands each piece (long ones as chunks) to `visit` in order until it returns false, one
   * segment at a time, and yields once a slice took SLICE_MS, so callers decide whether to
   * give the event loop back.
   */
  private *walk(text: string, visit: Visit): Generator<void, void> {
    let sliceStart = performance.now();
    let cutBefore = false;
    for (let segmentStart = 0; segmentStart < text.length; ) {
      const { end, cut } = segmentEnd(text, segmentStart);
      if (!this.visitSegment(segmentStart === 0 && end === text.length ? text : text.slice(segmentStart, end), cutBefore, visit)) return;
      cutBefore = cut;
      segmentStart = end;
      // By time, not length: a segment of CJK text costs several times one of prose.
      if (segmentStart < text.length && performance.now() - sliceStart >= SLICE_MS) {
        yield;
        sliceStart = performance.now();
      }
    }
  }

  /** One segment's pieces, long ones as chunks; false when `visit` asked to stop. */
  private visitSegment(segment: string, cutBefore: boolean, visit: Visit): boolean {
    let afterCut = cutBefore;
    for (const [piece] of segment.matchAll(this.pattern)) {
      for (let start = 0; start < piece.length; ) {
        const end = wholeCharacters(piece, start + MAX_CHUNK_CHARS);
        if (!visit(start === 0 && end === piece.length ? piece : piece.slice(start, end), start > 0 || afterCut)) return false;
        afterCut = false;
        start = end;
      }
    }
    return true;
  }

  private countUnit(unit: string): number {
    const known = this.pieces.get(unit);
    if (known !== undefined) return known;
    const count = this.encodeUnit(unit);
    this.pieces.set(unit, count);
    return count;
  }

  private encodeUnit(unit: string, out?: number[]): number {
    const { written } = this.utf8.encodeInto(unit, this.scratch);
    return bytePairEncode(this.scratch.subarray(0, written), this.byteRanks, this.pairRank, out);
  }
}
