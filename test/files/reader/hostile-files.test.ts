// The hostile-file corpus through the bot's real file readers (child processes with their own
// memory ceiling and time limit): each file is refused with its reason or read within the
// bounds, and the bot's own process is never the one that pays. The pre-scan that measures a
// PDF's expansion is tried on every shape of flate bomb and on the other filters that expand.
import { afterAll, describe, expect, it } from "vitest";
import { TokenCounter } from "../../../src/tokens/token-counter.js";
import type { TaskOrigin } from "../../../src/contracts/types.js";
import { loadConfig } from "../../../src/config.js";
import { extractFile } from "../../../src/files/extract.js";
import { createFileStore } from "../../../src/files/file-store.js";
import type { FileRef } from "../../../src/files/file-ref.js";
import { prepareFiles } from "../../../src/files/prepare-files.js";
import { measureExpansion } from "../../../src/files/reader/pdf-expansion.js";
import type { FileReader } from "../../../src/files/reader/file-reader.js";
import { decodeFilter } from "../../../src/files/reader/stream-filters.js";
import { bombPng, pdf, png, testFileReader } from "../../support/sample-files.js";
import {
  animatedGif,
  ascii85,
  executableBytes,
  flateBombPdf,
  invalidUtf8,
  manyPagesPdf,
  oneLineText,
  pdfFile,
  streamObject,
  truncated,
  zipBytes,
  zlibBomb,
} from "../../support/hostile-files.js";
import { mapStore } from "../../support/map-store.js";
import { readerPids } from "../../support/process-tree.js";

const MB = 1024 * 1024;
const BUDGET = 100 * MB;
const live = () => new AbortController().signal;
const reader = testFileReader();
afterAll(() => reader.close());

const extract = (name: string, mime: string, data: Buffer, using = reader) =>
  extractFile({ id: "F1", name, mime, size: data.length }, data, live(), using).then((extracted) =>
    extracted.kind === "done" ? extracted.file : extracted,
  );

/** A reader of its own for one test, with these limits, closed after it. */
async function withReader(limits: Parameters<typeof testFileReader>[0], use: (own: FileReader) => Promise<void>): Promise<void> {
  const own = testFileReader(limits);
  try {
    await use(own);
  } finally {
    await own.close();
  }
}

/** The reader process a reader started for a first read, among this test process's readers. */
async function warmedPid(own: ReturnType<typeof testFileReader>): Promise<number> {
  const before = new Set(readerPids());
  await own.read("pdf", await pdf(1), live());
  const started = readerPids().filter((pid) => !before.has(pid));
  expect(started).toHaveLength(1);
  return started[0]!;
}

describe("the pre-scan of a PDF's streams", () => {
  it.each(["one stream", "many streams", "object stream", "nested"] as const)(
    "a 2 GB flate bomb in %s is over a 100 MB budget, measured without holding it",
    async (shape) => {
      const bomb = flateBombPdf(2_048, shape);
      expect(bomb.length).toBeLessThan(3 * MB);
      const before = process.memoryUsage().arrayBuffers;
      expect(await measureExpansion(bomb, BUDGET)).toEqual({ kind: "over", budget: BUDGET });
      // Counted chunk by chunk: what it decoded is not kept.
      expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(BUDGET);
    },
  );

  it("a real PDF is within: its fonts and pages decoded, counted", async () => {
    const book = await pdf(30, (page) => `Page ${page}: ${"the quick brown fox ".repeat(20)}`);
    const measured = await measureExpansion(book, BUDGET);
    expect(measured).toMatchObject({ kind: "within" });
    if (measured.kind === "within") expect(measured.decodedBytes).toBeGreaterThan(book.length);
  });

  it("an image's stream is not counted (pdf.js never decodes it to read text); the same bytes as content are", async () => {
    const objects = (dict: string) => [
      "<< /Type /Catalog /Pages 2 0 R >>",
      "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
      "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>",
      streamObject(dict, zlibBomb(300)),
    ];
    expect(
      await measureExpansion(pdfFile(objects("/Type /XObject /Subtype /Image /Width 10 /Height 10 /Filter /FlateDecode")), BUDGET),
    ).toEqual({ kind: "within", decodedBytes: 0, streams: 0 });
    expect(await measureExpansion(pdfFile(objects("/Filter /FlateDecode")), BUDGET)).toEqual({ kind: "over", budget: BUDGET });
  });

  it("an `endstream` inside the data of a stream whose length is not direct does not cut the measure short", async () => {
    const data = zlibBomb(300, Buffer.from("\nendstream\nendobj\n"));
    expect(data.includes("endstream")).toBe(true);
    const bomb = pdfFile([
      "<< /Type /Catalog /Pages 2 0 R >>",
      "<< /Type /Pages /Kids [] /Count 0 >>",
      Buffer.concat([Buffer.from("<< /Length 4 0 R /Filter /FlateDecode >>\nstream\n"), data, Buffer.from("\nendstream")]),
      String(data.length),
    ]);
    expect(await measureExpansion(bomb, BUDGET)).toEqual({ kind: "over", budget: BUDGET });
  });

  it("a dictionary that can't be read leaves the filters unknown: bytes that look like zlib are inflated, layer after layer", async () => {
    const bomb = pdfFile([
      "<< /Type /Catalog /Pages 2 0 R >>",
      "<< /Type /Pages /Kids [] /Count 0 >>",
      Buffer.concat([Buffer.from("<< /Filter 5 0 R /Length (unclosed >>\nstream\n"), zlibBomb(300), Buffer.from("\nendstream")]),
    ]);
    expect(await measureExpansion(bomb, BUDGET)).toEqual({ kind: "over", budget: BUDGET });
  });

  it("ASCII85 around a flate bomb is decoded to reach it", async () => {
    const wrapped = pdfFile([
      "<< /Type /Catalog /Pages 2 0 R >>",
      "<< /Type /Pages /Kids [] /Count 0 >>",
      streamObject("/Filter [/ASCII85Decode /FlateDecode]", ascii85(zlibBomb(300))),
    ]);
    expect(await measureExpansion(wrapped, BUDGET)).toEqual({ kind: "over", budget: BUDGET });
  });
});

describe("the filters that expand, decoded within a limit", () => {
  it("LZW decodes the PDF reference's example, and a run of repeated codes stops at the limit", async () => {
    // PDF 1.7, 7.4.4.2: "-----A---B" is 256 45 258 258 65 259 66 257 as 9-bit codes.
    const example = Buffer.from([0x80, 0x0b, 0x60, 0x50, 0x22, 0x0c, 0x0c, 0x85, 0x01]);
    const decoded = await decodeFilter("lzw", example, 1_000, { keep: true });
    expect(Buffer.from(decoded.data).toString("latin1")).toBe("-----A---B");
    expect(decoded.over).toBe(false);
    // Every code after the first names the longest entry yet: each adds one byte more than the last.
    const codes = [0, ...Array.from({ length: 250 }, (_, index) => 258 + index)];
    expect(await decodeFilter("lzw", packCodes(codes, 9), 10_000)).toMatchObject({ over: true });
    expect(await decodeFilter("lzw", packCodes(codes, 9), 100_000)).toMatchObject({ over: false, size: (251 * 252) / 2 });
  });

  it("RunLength repeats a byte up to 128 times per 2 bytes, and stops at the limit", async () => {
    const run = Buffer.from(Array.from({ length: 1_000 }, () => [129, 7]).flat());
    expect(await decodeFilter("runLength", run, 1_000_000)).toMatchObject({ size: 128_000, over: false });
    expect(await decodeFilter("runLength", run, 1_000)).toMatchObject({ over: true });
    const literal = await decodeFilter("runLength", Buffer.from([2, 65, 66, 67, 128]), 100, { keep: true });
    expect(Buffer.from(literal.data).toString("latin1")).toBe("ABC");
  });

  it("ASCIIHex and ASCII85 decode what they encode", async () => {
    const hex = await decodeFilter("asciiHex", Buffer.from("48 65 6c6C 6f>"), 100, { keep: true });
    expect(Buffer.from(hex.data).toString("latin1")).toBe("Hello");
    const text = Buffer.from("Man is distinguished, not only by his reason");
    const a85 = await decodeFilter("ascii85", ascii85(text), 1_000, { keep: true });
    expect(Buffer.from(a85.data).toString("latin1")).toBe(text.toString("latin1"));
  });

  it("Flate counts a stream broken part-way up to the break, as pdf.js keeps that much", async () => {
    const broken = Buffer.concat([zlibBomb(3).subarray(0, -200), Buffer.alloc(50, 0xff)]);
    const decoded = await decodeFilter("flate", broken, 10 * MB);
    expect(decoded.over).toBe(false);
    expect(decoded.size).toBeGreaterThan(2 * MB);
  });
});

describe("the hostile corpus, through the reader", () => {
  it.each(["one stream", "many streams", "object stream", "nested"] as const)(
    "a PDF flate bomb (%s) is refused with the budget named; the reader takes the next file",
    async (shape) => {
      expect(await extract("report.pdf", "application/pdf", flateBombPdf(2_048, shape))).toMatchObject({
        kind: "unreadable",
        reason: "unreadable",
        detail: "it expands to more than 100.0 MB (FILE_MAX_EXPANDED_BYTES)",
      });
      expect(await extract("next.pdf", "application/pdf", await pdf(1))).toMatchObject({ kind: "pdf", pages: ["Page 1 of the spec"] });
    },
  );

  // The time is generous: opening 100,000 pages alone takes seconds on a loaded machine, and the
  // point is that half of it goes to pages and the answer comes before it ends.
  it("a PDF of 100,000 pages: its page count, and the pages read within half the read's time", { timeout: 40_000 }, async () => {
    await withReader({ readTimeoutMs: 20_000 }, async (quick) => {
      const file = await extract("huge.pdf", "application/pdf", manyPagesPdf(100_000), quick);
      expect(file).toMatchObject({ kind: "pdf", pageCount: 100_000 });
      if (file.kind !== "pdf") return;
      expect(file.pages.length).toBeGreaterThanOrEqual(1);
      expect(file.pages.length).toBeLessThan(100_000);
      expect(file.pages[0]).toBe("one of many pages");
    });
  });

  it("a PNG declaring 100,000 × 100,000 is refused from its header", async () => {
    expect(await extract("huge.png", "image/png", bombPng(100_000, 100_000))).toMatchObject({
      kind: "unreadable",
      detail: "the image is 100000×100000 (10000 megapixels), more than the 50 megapixels the bot decodes",
    });
  });

  it("a GIF of 10,000 frames is its first frame", async () => {
    expect(await extract("frames.gif", "image/gif", animatedGif(10_000))).toMatchObject({ kind: "image", width: 1, height: 1 });
  });

  it("truncated files are refused with their reason", async () => {
    expect(await extract("cut.pdf", "application/pdf", truncated(await pdf(3)))).toMatchObject({
      kind: "unreadable",
      detail: expect.stringMatching(/^the PDF is broken/),
    });
    expect(await extract("cut.png", "image/png", truncated(await png(400, 300)))).toMatchObject({
      kind: "unreadable",
      detail: expect.stringMatching(/^the image could not be decoded/),
    });
    expect(await extract("cut.pdf", "application/pdf", truncated(flateBombPdf(2_048, "one stream")))).toMatchObject({
      kind: "unreadable",
      detail: "it expands to more than 100.0 MB (FILE_MAX_EXPANDED_BYTES)",
    });
  });

  it("a ZIP and an executable under a PDF's and an image's name are not read as either", async () => {
    expect(await extract("invoice.pdf", "application/pdf", zipBytes())).toMatchObject({
      kind: "unreadable",
      detail: "it is labelled a PDF, but its bytes are not one",
    });
    expect(await extract("cat.png", "image/png", executableBytes())).toMatchObject({
      kind: "unreadable",
      detail: "it is labelled an image, but its bytes are not one",
    });
  });

  it("20 MB of text on one line is read and cut to the prompt's budget; invalid UTF-8 is replaced and counted", async () => {
    const store = createFileStore(mapStore());
    const origin: TaskOrigin = { surface: "slack", conversationKey: "slack:T1:C1:1.0", requester: { id: "U1" }, place: {} };
    const ref = (id: string, name: string, data: Buffer): FileRef => ({
      id,
      name,
      mime: "text/plain",
      size: data.length,
      download: async () => ({ kind: "ok", data }),
    });
    const { outcomes } = await prepareFiles([ref("FLINE", "line.txt", oneLineText(20 * MB)), ref("FBAD", "bad.txt", invalidUtf8(1_000))], {
      conversationKey: origin.conversationKey,
      limits: loadConfig({}).files,
      signal: live(),
      vision: false,
      counter: TokenCounter.forModel("gpt-4o"),
      store,
      reader,
    });
    expect(outcomes).toMatchObject([
      { status: "read", as: "text", cut: true },
      { status: "read", as: "text" },
    ]);
    expect(await store.load(origin.conversationKey, "FBAD")).toMatchObject({ kind: "text", replaced: 500 });
  });
});

describe("the reader's own bounds", () => {
  it("a bomb past the pre-scan (a budget set high) meets the reader's memory ceiling: refused, and the next file is read", async () => {
    await withReader({ maxExpandedBytes: 4_096 * MB, readerMemoryMb: 256, readTimeoutMs: 60_000 }, async (tight) => {
      expect(await extract("report.pdf", "application/pdf", flateBombPdf(1_024, "one stream"), tight)).toMatchObject({
        kind: "unreadable",
        detail: expect.stringMatching(
          /^(reading it needed more than the 256 MB|the file reader ended while it read it, most likely out of its 256 MB)/,
        ),
      });
      expect(await extract("next.pdf", "application/pdf", await pdf(1), tight)).toMatchObject({ kind: "pdf" });
    });
  });

  it("a read past FILE_READ_TIMEOUT_MS ends its reader and names the limit", async () => {
    await withReader({ readTimeoutMs: 1_000 }, async (slow) => {
      const pid = await warmedPid(slow);
      expect(await extract("huge.pdf", "application/pdf", manyPagesPdf(100_000), slow)).toMatchObject({
        kind: "unreadable",
        detail: "reading it took longer than 1 s (FILE_READ_TIMEOUT_MS)",
      });
      expect(readerPids()).not.toContain(pid);
    });
  });

  it("a run stopped mid-read ends the reader at once; nothing is known about the file", async () => {
    await withReader({}, async (own) => {
      const pid = await warmedPid(own);
      const run = new AbortController();
      const reading = own.read("pdf", manyPagesPdf(20_000), run.signal);
      setImmediate(() => run.abort());
      expect(await reading).toEqual({ kind: "stopped" });
      expect(readerPids()).not.toContain(pid);
    });
  });

  it("FILE_READERS=1: a second file waits for the first, never two readers at once", async () => {
    await withReader({ readers: 1 }, async (one) => {
      const pid = await warmedPid(one);
      const others = new Set(readerPids().filter((each) => each !== pid));
      let most = 0;
      const watching = setInterval(() => (most = Math.max(most, readerPids().filter((each) => !others.has(each)).length)), 20);
      const [first, second] = await Promise.all([
        one.read("pdf", await pdf(200), live()),
        one.read("image", await png(2_000, 1_500), live()),
      ]);
      clearInterval(watching);
      expect(first).toMatchObject({ kind: "pdf", pageCount: 200 });
      expect(second).toMatchObject({ kind: "image" });
      expect(most).toBe(1);
    });
  });

  it("a reader killed from outside mid-read (the kernel's OOM killer) fails that file only; the next read starts a new one", async () => {
    await withReader({}, async (own) => {
      const pid = await warmedPid(own);
      const reading = own.read("pdf", manyPagesPdf(20_000), live());
      setImmediate(() => process.kill(pid, "SIGKILL"));
      expect(await reading).toEqual({
        kind: "unreadable",
        detail: "the file reader ended while it read it, most likely out of its 512 MB of memory (FILE_READER_MEMORY_MB)",
      });
      expect(await own.read("pdf", await pdf(2), live())).toMatchObject({ kind: "pdf", pageCount: 2 });
      expect(readerPids()).not.toContain(pid);
    });
  });
});

/** LZW codes of `width` bits, packed high bit first. */
function packCodes(codes: readonly number[], width: number): Buffer {
  let bits = "";
  for (const code of codes) bits += code.toString(2).padStart(width, "0");
  bits = bits.padEnd(Math.ceil(bits.length / 8) * 8, "0");
  return Buffer.from(Array.from({ length: bits.length / 8 }, (_, index) => Number.parseInt(bits.slice(index * 8, index * 8 + 8), 2)));
}
