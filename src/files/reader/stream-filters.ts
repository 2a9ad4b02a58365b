// The PDF stream filters that can make a small file large, decoded with a ceiling on what they
// may produce: Flate (zlib), LZW, RunLength and the two ASCII encodings that often wrap them.
// Each returns what it decoded up to `limit` bytes and whether the stream went on past it, so
// the pre-scan (pdf-expansion.ts) measures a bomb without ever holding more than its budget.
// A stream that breaks off part-way counts what it decoded before: pdf.js keeps that much too.
import { constants, createInflate, inflateSync } from "node:zlib";

export interface Decoded {
  /** Bytes decoded, up to the limit. */
  readonly size: number;
  /** What it decoded, when asked to keep it (a layer that feeds the next); empty when it went `over`. */
  readonly data: Uint8Array;
  readonly over: boolean;
}

/** The filters measured, by the names pdf.js accepts (streams and inline images' short forms). */
export type MeasuredFilter = "flate" | "lzw" | "runLength" | "asciiHex" | "ascii85";

const FILTER_NAMES: Readonly<Record<string, MeasuredFilter>> = {
  FlateDecode: "flate",
  Fl: "flate",
  LZWDecode: "lzw",
  LZW: "lzw",
  RunLengthDecode: "runLength",
  RL: "runLength",
  ASCIIHexDecode: "asciiHex",
  AHx: "asciiHex",
  ASCII85Decode: "ascii85",
  A85: "ascii85",
};

/** The measured filter a PDF name stands for; undefined for image codecs (never decoded for text) and unknown names. */
export function measuredFilter(name: string): MeasuredFilter | undefined {
  return Object.hasOwn(FILTER_NAMES, name) ? FILTER_NAMES[name] : undefined;
}

export interface FilterOptions {
  /** LZW's /EarlyChange (1 unless the stream's parameters say 0). */
  readonly earlyChange?: boolean;
  /** Keep the decoded bytes (another layer reads them); otherwise they are only counted. */
  readonly keep?: boolean;
}

const EMPTY = new Uint8Array(0);
const OVER: Decoded = { size: 0, data: EMPTY, over: true };

export async function decodeFilter(
  filter: MeasuredFilter,
  input: Uint8Array,
  limit: number,
  options: FilterOptions = {},
): Promise<Decoded> {
  switch (filter) {
    case "flate":
      return inflateBounded(input, limit, options.keep ?? false);
    case "lzw":
      return lzwDecode(input, limit, options.earlyChange ?? true);
    case "runLength":
      return runLengthDecode(input, limit);
    case "asciiHex":
      return asciiHexDecode(input, limit);
    case "ascii85":
      return ascii85Decode(input, limit);
  }
}

/** True when the bytes start with a zlib header pdf.js's FlateStream accepts (deflate, valid check bits). */
export function looksLikeZlib(data: Uint8Array): boolean {
  if (data.length < 2) return false;
  const [cmf, flg] = [data[0]!, data[1]!];
  return (cmf & 0x0f) === 8 && ((cmf << 8) | flg) % 31 === 0 && (flg & 0x20) === 0;
}

/** Deflate never expands more than this (RFC 1951: a 258-byte match in as few as 2 bits). */
const MAX_DEFLATE_RATIO = 1_032;
/** Input small enough to inflate in one synchronous call: whatever it holds, its output stays under this. */
const SYNC_OUTPUT_BYTES = 4 * 1_048_576;

/**
 * Inflates up to `limit` bytes. Small input in one synchronous call (bounded by deflate's own
 * ratio); anything larger, or broken part-way, chunk by chunk, each chunk counted and dropped
 * unless kept: a 2 GB bomb costs one chunk of memory and the budget's worth of time.
 */
export async function inflateBounded(input: Uint8Array, limit: number, keep: boolean): Promise<Decoded> {
  if (!looksLikeZlib(input)) return { size: 0, data: EMPTY, over: false };
  if (input.length * MAX_DEFLATE_RATIO <= SYNC_OUTPUT_BYTES) {
    try {
      // Z_SYNC_FLUSH: a stream cut short (no end marker) gives what it has, as pdf.js does.
      const data = inflateSync(input, { finishFlush: constants.Z_SYNC_FLUSH });
      return data.length > limit ? OVER : { size: data.length, data: keep ? data : EMPTY, over: false };
    } catch {
      // Broken part-way: the chunks before the break count.
    }
  }
  return inflateChunks(input, limit, keep);
}

function inflateChunks(input: Uint8Array, limit: number, keep: boolean): Promise<Decoded> {
  return new Promise((resolve) => {
    const inflate = createInflate({ finishFlush: constants.Z_SYNC_FLUSH, chunkSize: 1_048_576 });
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (over: boolean) => {
      if (done) return;
      done = true;
      inflate.destroy();
      resolve(over ? OVER : { size, data: keep ? Buffer.concat(chunks, size) : EMPTY, over: false });
    };
    inflate.on("data", (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > limit) return finish(true);
      if (keep) chunks.push(chunk);
    });
    inflate.on("error", () => finish(false));
    inflate.on("end", () => finish(false));
    // The stream's bytes may run on to the end of the file: zlib stops at the stream's own end marker.
    inflate.end(input);
  });
}

/** A growing output that refuses to pass `limit`. */
class BoundedOutput {
  private buffer = new Uint8Array(1_024);
  length = 0;
  over = false;
  constructor(private readonly limit: number) {}

  /** False (and marks `over`) once the limit is passed. */
  push(bytes: Uint8Array, count = bytes.length): boolean {
    if (this.length + count > this.limit) {
      this.over = true;
      return false;
    }
    if (this.length + count > this.buffer.length) {
      const grown = new Uint8Array(Math.min(this.limit, Math.max(this.buffer.length * 2, this.length + count)));
      grown.set(this.buffer.subarray(0, this.length));
      this.buffer = grown;
    }
    this.buffer.set(count === bytes.length ? bytes : bytes.subarray(0, count), this.length);
    this.length += count;
    return true;
  }

  result(): Decoded {
    return this.over ? OVER : { size: this.length, data: this.buffer.subarray(0, this.length), over: false };
  }
}

/** PDF's LZW (9 to 12 bit codes, 256 clears, 257 ends), as pdf.js's LZWStream reads it. */
function lzwDecode(input: Uint8Array, limit: number, earlyChange: boolean): Decoded {
  const out = new BoundedOutput(limit);
  const prefixes = new Int32Array(4_096);
  const suffixes = new Uint8Array(4_096);
  const lengths = new Uint16Array(4_096);
  for (let code = 0; code < 256; code++) {
    suffixes[code] = code;
    lengths[code] = 1;
  }
  const entry = new Uint8Array(4_096);
  let next = 258;
  let width = 9;
  let previous = -1;
  let bits = 0;
  let held = 0;
  let at = 0;
  const early = earlyChange ? 1 : 0;
  while (true) {
    while (held < width) {
      if (at >= input.length) return out.result();
      bits = ((bits << 8) | input[at++]!) >>> 0;
      held += 8;
    }
    const code = (bits >>> (held - width)) & ((1 << width) - 1);
    held -= width;
    if (code === 256) {
      next = 258;
      width = 9;
      previous = -1;
      continue;
    }
    if (code === 257) return out.result();
    let length: number;
    if (code < next) {
      length = lengths[code]!;
      for (let index = length - 1, walk = code; index >= 0; index--, walk = prefixes[walk]!) entry[index] = suffixes[walk]!;
    } else if (code === next && previous >= 0) {
      length = lengths[previous]! + 1;
      for (let index = length - 2, walk = previous; index >= 0; index--, walk = prefixes[walk]!) entry[index] = suffixes[walk]!;
      entry[length - 1] = entry[0]!;
    } else return out.result();
    if (previous >= 0 && next < 4_096) {
      prefixes[next] = previous;
      suffixes[next] = entry[0]!;
      lengths[next] = lengths[previous]! + 1;
      next++;
    }
    if (next + early >= 1 << width && width < 12) width++;
    previous = code;
    if (!out.push(entry, length)) return out.result();
  }
}

/** A length byte n: n < 128 copies n + 1 bytes, n > 128 repeats the next byte 257 − n times, 128 ends. */
function runLengthDecode(input: Uint8Array, limit: number): Decoded {
  const out = new BoundedOutput(limit);
  const run = new Uint8Array(128);
  for (let at = 0; at < input.length; ) {
    const n = input[at++]!;
    if (n === 128) break;
    if (n < 128) {
      const bytes = input.subarray(at, at + n + 1);
      at += n + 1;
      if (!out.push(bytes)) break;
    } else {
      if (at >= input.length) break;
      run.fill(input[at++]!, 0, 257 - n);
      if (!out.push(run, 257 - n)) break;
    }
  }
  return out.result();
}

const hexValue = (byte: number): number =>
  byte >= 0x30 && byte <= 0x39 ? byte - 0x30 : byte >= 0x41 && byte <= 0x46 ? byte - 0x37 : byte >= 0x61 && byte <= 0x66 ? byte - 0x57 : -1;

function asciiHexDecode(input: Uint8Array, limit: number): Decoded {
  const out = new BoundedOutput(limit);
  let high = -1;
  for (const byte of input) {
    if (byte === 0x3e) break;
    const value = hexValue(byte);
    if (value < 0) continue;
    if (high < 0) high = value;
    else {
      if (!out.push(Uint8Array.of((high << 4) | value))) return out.result();
      high = -1;
    }
  }
  if (high >= 0) out.push(Uint8Array.of(high << 4));
  return out.result();
}

function ascii85Decode(input: Uint8Array, limit: number): Decoded {
  const out = new BoundedOutput(limit);
  const group: number[] = [];
  const flush = (count: number) => {
    let value = 0;
    for (let index = 0; index < 5; index++) value = value * 85 + (group[index] ?? 84);
    const bytes = Uint8Array.of(value >>> 24, value >>> 16, value >>> 8, value);
    return out.push(bytes, count);
  };
  for (let at = 0; at < input.length; at++) {
    const byte = input[at]!;
    if (byte === 0x7e) break;
    if (byte === 0x7a && group.length === 0) {
      if (!out.push(new Uint8Array(4))) return out.result();
      continue;
    }
    if (byte < 0x21 || byte > 0x75) continue;
    group.push(byte - 0x21);
    if (group.length === 5) {
      if (!flush(4)) return out.result();
      group.length = 0;
    }
  }
  if (group.length > 1) flush(group.length - 1);
  return out.result();
}
