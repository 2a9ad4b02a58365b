// Builds js-tiktoken's rank tables in slices. Tiktoken's own constructor parses the whole rank
// file in one go (~0.6 s of synchronous work for o200k_base): a process that did that at start
// was not listening for it, and an ack that arrived meanwhile waited for it. Here the same
// tables are filled a slice at a time (a few milliseconds each), by turns with other work, into
// an encoder constructed empty; the result is the same encoder (tokenizer-tables.test.ts).
import { Tiktoken, type TiktokenBPE } from "js-tiktoken/lite";

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

/** A build under way: it goes on a slice at a time by itself, and can be finished at once when a count can't wait. */
export interface EncoderBuild {
  /** Resolves with the encoder once every slice ran. */
  readonly done: Promise<Tiktoken>;
  /** Runs what is left of the build now, synchronously, and returns the encoder. */
  finishNow(): Tiktoken;
}

/** Starts the build; each slice takes about SLICE_MS, then the event loop gets its turn. */
export function startEncoderBuild(ranks: TiktokenBPE): EncoderBuild {
  const encoder = emptyEncoder(ranks);
  const work = fill(ranks, tablesOf(encoder));
  let finished = false;
  let failure: unknown;
  /** One step of the build; a build that failed once fails every caller, never hands out half a table. */
  const step = (): void => {
    if (failure !== undefined) throw failure;
    try {
      finished = work.next().done === true;
    } catch (error) {
      failure = error;
      throw error;
    }
  };
  const finishNow = (): Tiktoken => {
    while (!finished) step();
    return encoder;
  };
  const slices = async (): Promise<Tiktoken> => {
    // The first slice waits a turn: whoever started the build finishes what it was doing first.
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (!finished) {
      const sliceEnd = performance.now() + SLICE_MS;
      while (!finished && performance.now() < sliceEnd) step();
      if (!finished) await new Promise<void>((resolve) => setImmediate(resolve));
    }
    return encoder;
  };
  return { done: slices(), finishNow };
}
