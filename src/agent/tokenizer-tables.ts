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

/** The whole build at once, for a count that is needed before the sliced build finished. */
export function buildEncoder(ranks: TiktokenBPE): Tiktoken {
  const encoder = emptyEncoder(ranks);
  for (const _ of fill(ranks, tablesOf(encoder)));
  return encoder;
}

/** The same build, handing the event loop back after each slice of about SLICE_MS. */
export async function buildEncoderInSlices(ranks: TiktokenBPE): Promise<Tiktoken> {
  const encoder = emptyEncoder(ranks);
  const work = fill(ranks, tablesOf(encoder));
  for (;;) {
    const sliceEnd = performance.now() + SLICE_MS;
    let step = work.next();
    while (!step.done && performance.now() < sliceEnd) step = work.next();
    if (step.done) return encoder;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}
