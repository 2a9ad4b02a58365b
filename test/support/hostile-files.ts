// Hostile files, made by the tests (no binaries checked in): PDFs whose streams inflate to
// gigabytes from a few megabytes (one stream, many small ones, an object stream, a stream
// compressed twice), a PDF of 100,000 pages, a GIF of 10,000 frames, truncated files, archives
// and executables under a PDF's or an image's name, one-line and invalid-UTF-8 text; and the
// ASCII85 encoding a bomb can hide in.
// A flate bomb is built from one compressed megabyte of zeros repeated, so a 2 GB bomb costs
// the test a few megabytes and no time.
import { constants, deflateRawSync, deflateSync } from "node:zlib";

const MB = 1024 * 1024;
const ADLER_MOD = 65_521;

/** One megabyte of zeros as raw deflate blocks that end byte-aligned with no history: repeatable. */
const ZERO_UNIT = deflateRawSync(Buffer.alloc(MB), { finishFlush: constants.Z_FULL_FLUSH, level: 9 });
/** An empty final block. */
const FINAL_BLOCK = deflateRawSync(Buffer.alloc(0));

function adler32(data: Buffer, start: { a: number; b: number } = { a: 1, b: 0 }): { a: number; b: number } {
  let { a, b } = start;
  for (const byte of data) {
    a = (a + byte) % ADLER_MOD;
    b = (b + a) % ADLER_MOD;
  }
  return { a, b };
}

/** A zlib stream of `prefix` (stored as it is: its bytes appear in the stream) then `zeroMegabytes` MB of zeros, with a correct checksum. */
export function zlibBomb(zeroMegabytes: number, prefix: Buffer = Buffer.alloc(0)): Buffer {
  const head = deflateRawSync(prefix, { finishFlush: constants.Z_FULL_FLUSH, level: 0 });
  const { a, b: prefixB } = adler32(prefix);
  // Each zero adds `a` to b, `a` itself stays.
  const b = Number((BigInt(prefixB) + BigInt(a) * BigInt(zeroMegabytes) * BigInt(MB)) % BigInt(ADLER_MOD));
  const check = Buffer.alloc(4);
  check.writeUInt32BE(((b << 16) | a) >>> 0);
  return Buffer.concat([Buffer.from([0x78, 0xda]), head, ...Array.from({ length: zeroMegabytes }, () => ZERO_UNIT), FINAL_BLOCK, check]);
}

/** A PDF file from its numbered objects (1-based; object 1 is the catalog), with a correct cross-reference table. */
export function pdfFile(objects: ReadonlyArray<string | Buffer>): Buffer {
  const parts: Buffer[] = [Buffer.from("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n", "latin1")];
  const offsets: number[] = [];
  let length = parts[0]!.length;
  for (const [index, object] of objects.entries()) {
    offsets.push(length);
    const body = Buffer.concat([
      Buffer.from(`${index + 1} 0 obj\n`, "latin1"),
      Buffer.isBuffer(object) ? object : Buffer.from(object, "latin1"),
      Buffer.from("\nendobj\n"),
    ]);
    parts.push(body);
    length += body.length;
  }
  const xref = [
    `xref\n0 ${objects.length + 1}\n`,
    "0000000000 65535 f \n",
    ...offsets.map((offset) => `${String(offset).padStart(10, "0")} 00000 n \n`),
  ].join("");
  parts.push(Buffer.from(`${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`, "latin1"));
  return Buffer.concat(parts);
}

/** `<< dict /Length n >> stream … endstream` */
export function streamObject(dict: string, data: Buffer): Buffer {
  return Buffer.concat([
    Buffer.from(`<< ${dict} /Length ${data.length} >>\nstream\n`, "latin1"),
    data,
    Buffer.from("\nendstream", "latin1"),
  ]);
}

const CATALOG = "<< /Type /Catalog /Pages 2 0 R >>";
const FONT = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>";
const page = (contents: string) =>
  `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${contents} >>`;

export type FlateBombShape = "one stream" | "many streams" | "object stream" | "nested";

/** A one-page PDF whose streams inflate to `megabytes` MB in all, in the given shape. */
export function flateBombPdf(megabytes: number, shape: FlateBombShape): Buffer {
  if (shape === "one stream")
    return pdfFile([
      CATALOG,
      "<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
      FONT,
      page("5 0 R"),
      streamObject("/Filter /FlateDecode", zlibBomb(megabytes)),
    ]);
  if (shape === "nested")
    return pdfFile([
      CATALOG,
      "<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
      FONT,
      page("5 0 R"),
      streamObject("/Filter [/FlateDecode /FlateDecode]", deflateSync(zlibBomb(megabytes), { level: 9 })),
    ]);
  if (shape === "many streams") {
    const first = 5;
    const refs = Array.from({ length: megabytes }, (_, index) => `${first + index} 0 R`).join(" ");
    const contents = Array.from({ length: megabytes }, () =>
      streamObject("/Filter /FlateDecode", zlibBomb(1, Buffer.from("BT /F1 12 Tf 40 700 Td (x) Tj ET\n"))),
    );
    return pdfFile([CATALOG, "<< /Type /Pages /Kids [4 0 R] /Count 1 >>", FONT, page(`[${refs}]`), ...contents]);
  }
  // An object stream holding object 6, padded with zeros (whitespace to a PDF reader).
  const objects = "6 0 ";
  const packed = zlibBomb(megabytes, Buffer.from(`${objects}42 `, "latin1"));
  return pdfFile([
    CATALOG,
    "<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
    FONT,
    page("5 0 R"),
    streamObject("", Buffer.from("BT /F1 12 Tf 40 700 Td (object stream) Tj ET")),
    "<< >>",
    streamObject(`/Type /ObjStm /N 1 /First ${objects.length} /Filter /FlateDecode`, packed),
  ]);
}

/** A real PDF of `pages` pages that share one small content stream. */
export function manyPagesPdf(pages: number): Buffer {
  const first = 5;
  const kids = Array.from({ length: pages }, (_, index) => `${first + index} 0 R`).join(" ");
  const pageObject = `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents 4 0 R >>`;
  return pdfFile([
    CATALOG,
    `<< /Type /Pages /Kids [${kids}] /Count ${pages} >>`,
    FONT,
    streamObject("", Buffer.from("BT /F1 12 Tf 40 700 Td (one of many pages) Tj ET")),
    ...Array.from({ length: pages }, () => pageObject),
  ]);
}

/** A GIF of `frames` 1×1 frames. */
export function animatedGif(frames: number): Buffer {
  const header = Buffer.from([
    ...Buffer.from("GIF89a", "latin1"),
    1,
    0,
    1,
    0,
    0x80,
    0,
    0, // 1×1, a global table of 2 colours
    0,
    0,
    0,
    0xff,
    0xff,
    0xff,
    0x21,
    0xff,
    0x0b,
    ...Buffer.from("NETSCAPE2.0", "latin1"),
    3,
    1,
    0,
    0,
    0, // loop forever
  ]);
  const frame = Buffer.from([
    0x21,
    0xf9,
    4,
    0,
    1,
    0,
    0,
    0, // graphic control: 10 ms
    0x2c,
    0,
    0,
    0,
    0,
    1,
    0,
    1,
    0,
    0, // image descriptor 1×1
    2,
    2,
    0x44,
    0x01,
    0, // LZW minimum code size 2, one data block
  ]);
  return Buffer.concat([header, ...Array.from({ length: frames }, () => frame), Buffer.from([0x3b])]);
}

/** The first half of a file. */
export const truncated = (data: Buffer): Buffer => data.subarray(0, Math.floor(data.length / 2));

/** A ZIP archive's first bytes (a local file header), as a file renamed .pdf or .png starts. */
export const zipBytes = (): Buffer => Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04, 20, 0, 0, 0, 8, 0]), Buffer.alloc(200, 7)]);

/** An ELF executable's first bytes. */
export const executableBytes = (): Buffer => Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]), Buffer.alloc(200)]);

/** `bytes` of text with no line break. */
export const oneLineText = (bytes: number): Buffer => Buffer.alloc(bytes, "lorem ipsum dolor sit amet ");

/** `bytes` of text in which every other byte is 0xFF, never valid UTF-8: `bytes / 2` replacements. */
export const invalidUtf8 = (bytes: number): Buffer => Buffer.alloc(bytes, Buffer.from([0x61, 0xff]));

/** ASCII85 (Adobe's base-85), ending in `~>`. */
export function ascii85(data: Buffer): Buffer {
  let out = "";
  for (let at = 0; at < data.length; at += 4) {
    const group = data.subarray(at, at + 4);
    const padded = Buffer.concat([group, Buffer.alloc(4 - group.length)]);
    let value = padded.readUInt32BE(0);
    if (value === 0 && group.length === 4) {
      out += "z";
      continue;
    }
    const digits: string[] = [];
    for (let index = 0; index < 5; index++, value = Math.floor(value / 85)) digits.unshift(String.fromCharCode(33 + (value % 85)));
    out += digits.slice(0, group.length + 1).join("");
  }
  return Buffer.from(`${out}~>`, "latin1");
}
