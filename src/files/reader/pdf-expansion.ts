// How large a PDF becomes once pdf.js decodes it to read its text, measured before pdf.js sees
// it: every stream but images is decoded through its filters (each layer of a chain counts, as
// pdf.js holds each), with the budget as the ceiling of the decoders themselves, so a 2 MB file
// that inflates to 2 GB is stopped after the budget's worth of work and memory. A stream whose
// dictionary can't be read is inflated while its bytes look like zlib data (nested bombs too).
// Encrypted streams can't be measured (their bytes are noise before decryption): the reader's
// memory ceiling is what bounds those.
import { pdfStreams, type PdfStream } from "./pdf-streams.js";
import { decodeFilter, looksLikeZlib, measuredFilter, type MeasuredFilter } from "./stream-filters.js";

export type Expansion =
  | { readonly kind: "within"; readonly decodedBytes: number; readonly streams: number }
  | { readonly kind: "over"; readonly budget: number };

/** Layers inflated for a stream whose filters are unknown. */
const MAX_GUESSED_LAYERS = 4;
/** Streams measured between two yields to the event loop (the reader can then notice its parent left). */
const STREAMS_PER_TURN = 256;

/** Never rejects. */
export async function measureExpansion(data: Uint8Array, budget: number): Promise<Expansion> {
  const text = Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString("latin1");
  let decodedBytes = 0;
  let streams = 0;
  for (const stream of pdfStreams(text)) {
    if (stream.image) continue;
    const left = budget - decodedBytes;
    const measured = await measureStream(data.subarray(stream.start, stream.end), stream, left);
    if (measured === "over") return { kind: "over", budget };
    decodedBytes += measured;
    if (++streams % STREAMS_PER_TURN === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  return { kind: "within", decodedBytes, streams };
}

/** Bytes decoded over every layer, or "over" once that passes `left`. */
async function measureStream(bytes: Uint8Array, stream: PdfStream, left: number): Promise<number | "over"> {
  const layers = stream.filters === undefined ? guessedLayers(bytes) : knownLayers(stream);
  let input = bytes;
  let total = 0;
  for (const [index, layer] of layers.entries()) {
    if (layer === "flate" && stream.filters === undefined && !looksLikeZlib(input)) break;
    // The last layer is only counted; a layer another reads is kept, and counts, as pdf.js holds both.
    const keep = stream.filters === undefined || index < layers.length - 1;
    const decoded = await decodeFilter(layer, input, left - total, { earlyChange: stream.earlyChange[index] ?? true, keep });
    if (decoded.over) return "over";
    total += decoded.size;
    input = decoded.data;
  }
  return total;
}

/** The measured filters in order, up to the first that isn't measured (an image codec, a crypt filter). */
function knownLayers(stream: PdfStream): MeasuredFilter[] {
  const layers: MeasuredFilter[] = [];
  for (const name of stream.filters ?? []) {
    const filter = measuredFilter(name);
    if (!filter) break;
    layers.push(filter);
  }
  return layers;
}

function guessedLayers(bytes: Uint8Array): MeasuredFilter[] {
  return looksLikeZlib(bytes) ? Array.from({ length: MAX_GUESSED_LAYERS }, () => "flate" as const) : [];
}
