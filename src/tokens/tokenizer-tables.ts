// Builds js-tiktoken's rank tables in slices. Tiktoken's own constructor parses the whole rank
// file in one go (~0.6 s of synchronous work for o200k_base): a process that did that at start
// was not listening for it, and an ack that arrived meanwhile waited for it. Here the same
// tables are filled a slice at a time (a few milliseconds each), by turns with other work, into
// an encoder constructed empty; the result is the same encoder (tokenizer-tables.test.ts). The
// merge's pair table (pair-rank-table.ts) is built from them in the same slices.
import { Tiktoken, type TiktokenBPE } from "js-tiktoken/lite";
import type { PairRank } from "./byte-pair-merge.js";
import { buildPairRankTable } from "./pair-rank-table.js";

/** js-tiktoken 1.0.x's internal tables: bytes (comma-joined) → rank, and rank → bytes. */
interface EncoderTables {
  readonly rankMap: Map<string, number>;
  readonly textMap: Map<number, Uint8Array>;
}

/** How long one slice may hold the event loop. */
const SLICE_MS = 5;
/** Tokens parsed between looks at the clock. */
const TOKENS_PER_CHECK = 500;

function tablesOf(encoder: Tiktoken): EncoderTables {
  const tables = encoder as unknown as Partial<EncoderTables>;
  if (!(tables.rankMap instanceof Map) || !(tables.textMap instanceof Map)) {
    throw new Error("js-tiktoken changed its internal tables (rankMap, textMap); the tokenizer needs an update");
  }
  return tables as EncoderTables;
}

/**
 * Fills the tables from the rank file: lines of `<name> <first rank> <base64 token>…`, each
 * token one rank above the one before. Yields after every TOKENS_PER_CHECK tokens.
 */
function* fill(ranks: TiktokenBPE, tables: EncoderTables): Generator<void, void> {
  const text = ranks.bpe_ranks;
  let lineStart = 0;
  while (lineStart < text.length) {
    let lineEnd = text.indexOf("\n", lineStart);
    if (lineEnd < 0) lineEnd = text.length;
    const nameEnd = text.indexOf(" ", lineStart);
    const offsetEnd = text.indexOf(" ", nameEnd + 1);
    if (nameEnd >= 0 && nameEnd < lineEnd && offsetEnd > nameEnd) {
      let rank = Number.parseInt(text.slice(nameEnd + 1, Math.min(offsetEnd, lineEnd)), 10);
      let start = Math.min(offsetEnd, lineEnd) + 1;
      let parsed = 0;
      while (start < lineEnd) {
        let end = text.indexOf(" ", start);
        if (end < 0 || end > lineEnd) end = lineEnd;
        if (end > start) {
          // Buffer.from takes small buffers from a shared pool: far fewer objects than one ArrayBuffer per token.
          const bytes = Buffer.from(text.slice(start, end), "base64");
          tables.rankMap.set(bytes.join(","), rank);
          tables.textMap.set(rank, bytes);
          rank++;
          if (++parsed % TOKENS_PER_CHECK === 0) yield;
        }
        start = end + 1;
      }
    }
    lineStart = lineEnd + 1;
  }
}

function emptyEncoder(ranks: TiktokenBPE): Tiktoken {
  return new Tiktoken({ pat_str: ranks.pat_str, special_tokens: ranks.special_tokens, bpe_ranks: "" });
}

/** What a build makes: js-tiktoken's encoder (its tables, and decode) and the merge's pair lookup. */
export interface EncoderTablesBuilt {
  readonly encoder: Tiktoken;
  readonly pairRank: PairRank;
}

/** A build under way: it goes on a slice at a time by itself, and can be finished at once when a count can't wait. */
export interface EncoderBuild {
  /** Resolves once every slice ran. */
  readonly done: Promise<EncoderTablesBuilt>;
  /** Runs what is left of the build now, synchronously; the same object `done` resolves with. */
  finishNow(): EncoderTablesBuilt;
}

function* build(ranks: TiktokenBPE, encoder: Tiktoken): Generator<void, EncoderTablesBuilt> {
  const tables = tablesOf(encoder);
  yield* fill(ranks, tables);
  return { encoder, pairRank: yield* buildPairRankTable(tables.textMap) };
}

/** Starts the build; each slice takes about SLICE_MS, then the event loop gets its turn. */
export function startEncoderBuild(ranks: TiktokenBPE): EncoderBuild {
  const work = build(ranks, emptyEncoder(ranks));
  let built: EncoderTablesBuilt | undefined;
  let failure: unknown;
  /** One step of the build; a build that failed once fails every caller, never hands out half a table. */
  const step = (): void => {
    if (failure !== undefined) throw failure;
    try {
      const step = work.next();
      if (step.done) built = step.value;
    } catch (error) {
      failure = error;
      throw error;
    }
  };
  const finishNow = (): EncoderTablesBuilt => {
    while (!built) step();
    return built;
  };
  const slices = async (): Promise<EncoderTablesBuilt> => {
    // The first slice waits a turn: whoever started the build finishes what it was doing first.
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (!built) {
      const sliceEnd = performance.now() + SLICE_MS;
      while (!built && performance.now() < sliceEnd) step();
      if (!built) await new Promise<void>((resolve) => setImmediate(resolve));
    }
    return built;
  };
  return { done: slices(), finishNow };
}
