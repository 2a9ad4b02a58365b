// Builds an encoding's tables from js-tiktoken's rank file, in slices. js-tiktoken's own
// constructor parses the whole file in one go (~0.6 s of synchronous work for o200k_base) into
// a Map from comma-joined bytes to rank and one Uint8Array per token: ~50 MB of heap kept and
// ~100 MB of RSS once built. Here every token's bytes go into one array beside a table of
// spans (a few MB, see vocabulary.ts), filled a slice at a time by turns with other work, and
// the merge's pair table (pair-rank-table.ts) is built from them in the same slices.
import type { TiktokenBPE } from "js-tiktoken/lite";
import type { PairRank } from "./byte-pair-merge.js";
import { buildPairRankTable } from "./pair-rank-table.js";
import { parseVocabulary, type Vocabulary } from "./vocabulary.js";

/** How long one slice may hold the event loop. */
const SLICE_MS = 5;

/** What a build makes: each rank's bytes (for decode), the rank of each single byte, and the merge's pair lookup. */
export interface EncoderTablesBuilt {
  readonly vocabulary: Vocabulary;
  /** Per byte value, the rank of the token of that one byte (-1: none). */
  readonly byteRanks: Int32Array;
  readonly pairRank: PairRank;
}

/** A build under way: it goes on a slice at a time by itself, and can be finished at once when a count can't wait. */
export interface EncoderBuild {
  /** Resolves once every slice ran. */
  readonly done: Promise<EncoderTablesBuilt>;
  /** Runs what is left of the build now, synchronously; the same object `done` resolves with. */
  finishNow(): EncoderTablesBuilt;
}

function byteRanksOf(vocabulary: Vocabulary): Int32Array {
  const byteRanks = new Int32Array(256).fill(-1);
  const { spans, bytes } = vocabulary;
  for (let rank = 0; rank < vocabulary.size; rank++) if (spans[2 * rank + 1] === 1) byteRanks[bytes[spans[2 * rank]!]!] = rank;
  return byteRanks;
}

function* build(ranks: TiktokenBPE): Generator<void, EncoderTablesBuilt> {
  const vocabulary = yield* parseVocabulary(ranks.bpe_ranks);
  return { vocabulary, byteRanks: byteRanksOf(vocabulary), pairRank: yield* buildPairRankTable(vocabulary) };
}

/** Starts the build; each slice takes about SLICE_MS, then the event loop gets its turn. */
export function startEncoderBuild(ranks: TiktokenBPE): EncoderBuild {
  const work = build(ranks);
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
