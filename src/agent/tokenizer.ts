// js-tiktoken behind a counting-first interface. Counting splits the text with the encoding's
// own pattern and keeps a count per piece: the encoder works on each piece on its own, so the
// sum is exact, and text made of pieces seen before costs no encoder call at all (each call
// pays a fixed setup, ~15 µs, that dwarfs short texts).
import { Tiktoken, type TiktokenBPE } from "js-tiktoken/lite";
import cl100kBase from "js-tiktoken/ranks/cl100k_base";
import o200kBase from "js-tiktoken/ranks/o200k_base";

export type EncodingName = "o200k_base" | "cl100k_base";

const RANKS: Record<EncodingName, TiktokenBPE> = { o200k_base: o200kBase, cl100k_base: cl100kBase };
/** Beyond this many unseen pieces one encoder call for the whole text is cheaper than one per piece. */
const MAX_PIECE_CALLS = 16;
const LEARNT_PER_NEW_TEXT = 4;
const PIECE_CACHE_LIMIT = 50_000;

export class Tokenizer {
  private readonly encoder: Tiktoken;
  private readonly pattern: RegExp;
  /** Two generations, like the text cache in TokenCounter: bounded, and pieces in use survive. */
  private recentPieces = new Map<string, number>();
  private olderPieces = new Map<string, number>();

  private constructor(ranks: TiktokenBPE) {
    this.encoder = new Tiktoken(ranks);
    this.pattern = new RegExp(ranks.pat_str, "gu");
  }

  private static readonly loaded = new Map<EncodingName, Tokenizer>();

  /** The rank tables take a few hundred milliseconds and ~100 MB to build: once per encoding per process. */
  static for(encoding: EncodingName): Tokenizer {
    let tokenizer = Tokenizer.loaded.get(encoding);
    if (!tokenizer) {
      tokenizer = new Tokenizer(RANKS[encoding]);
      Tokenizer.loaded.set(encoding, tokenizer);
    }
    return tokenizer;
  }

  /** Control tokens such as <|endoftext|> in people's or tools' text count as plain text, as the API treats them. */
  encode(text: string): number[] {
    return this.encoder.encode(text, [], []);
  }

  decode(tokens: number[]): string {
    return this.encoder.decode(tokens);
  }

  count(text: string): number {
    let total = 0;
    const unseen = new Set<string>();
    const pieces: string[] = [];
    for (const [piece] of text.matchAll(this.pattern)) {
      const known = this.recentPieces.get(piece) ?? this.olderPieces.get(piece);
      if (known === undefined) {
        unseen.add(piece);
        pieces.push(piece);
      } else {
        total += known;
      }
    }
    if (unseen.size === 0) return total;
    if (unseen.size > MAX_PIECE_CALLS) {
      // Mostly new text: one call counts it; a few of its pieces are learnt so similar text gets cheaper.
      for (const piece of [...unseen].slice(0, LEARNT_PER_NEW_TEXT)) this.rememberPiece(piece, this.encode(piece).length);
      return this.encode(text).length;
    }
    for (const piece of unseen) this.rememberPiece(piece, this.encode(piece).length);
    for (const piece of pieces) total += this.recentPieces.get(piece)!;
    return total;
  }

  private rememberPiece(piece: string, count: number): void {
    if (this.recentPieces.size >= PIECE_CACHE_LIMIT) {
      this.olderPieces = this.recentPieces;
      this.recentPieces = new Map();
    }
    this.recentPieces.set(piece, count);
  }
}
