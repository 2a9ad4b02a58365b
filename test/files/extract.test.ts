// Extraction: the kind of a file before and after its download, text decoding, and the file
// reader's processes: images through sharp with its bounded decoder, PDFs through pdf.js, both
// off the bot's process (its event loop stays free, its memory is not theirs).
import { randomBytes } from "node:crypto";
import sharp from "sharp";
import { afterAll, describe, expect, it } from "vitest";
import { extractFile } from "../../src/files/extract.js";
import { MAX_IMAGE_BYTES } from "../../src/files/reader/prepare-image.js";
import { decodeText } from "../../src/files/extract-text.js";
import { declaredKind, isHtmlFile, sniffedKind } from "../../src/files/file-kind.js";
import { bombPng, encryptedPdf, pdf, png, testFileReader } from "../support/sample-files.js";

const live = () => new AbortController().signal;
const reader = testFileReader();
afterAll(() => reader.close());
const prepareImage = (data: Buffer) => reader.read("image", data, live());
const extractPdfText = (data: Buffer, signal: AbortSignal) => reader.read("pdf", data, signal);

describe("the kind of a file", () => {
  it("comes from the declared type, and from the name when the type says nothing", () => {
    expect(declaredKind("shot.png", "image/png")).toBe("image");
    expect(declaredKind("spec", "application/pdf")).toBe("pdf");
    expect(declaredKind("export.csv", "text/csv")).toBe("text");
    expect(declaredKind("data", "application/vnd.api+json")).toBe("text");
    expect(declaredKind("server.log", "application/octet-stream")).toBe("text");
    expect(declaredKind("main.rs", "")).toBe("text");
    expect(declaredKind("Dockerfile", "application/octet-stream")).toBe("text");
    expect(declaredKind("photo.JPG", "binary/octet-stream")).toBe("image");
    expect(declaredKind("archive.zip", "application/zip")).toBe("other");
    expect(declaredKind("tool.exe", "application/octet-stream")).toBe("other");
    expect(isHtmlFile("page.html", "application/octet-stream")).toBe(true);
    expect(isHtmlFile("notes.txt", "text/plain")).toBe(false);
  });

  it("the bytes decide after the download: a PNG named .txt is an image, a text named .png is not read as one", async () => {
    expect(sniffedKind(await png(4, 4))).toBe("image");
    expect(sniffedKind(await pdf(1))).toBe("pdf");
    expect(sniffedKind(Buffer.from("plain"))).toBeUndefined();
    const info = { id: "F1", name: "notes.txt", mime: "text/plain" };
    const image = await png(4, 4);
    expect(await extractFile({ ...info, size: image.length }, image, live(), reader)).toMatchObject({ file: { kind: "image" } });
    const fake = Buffer.from("not an image");
    expect(await extractFile({ ...info, name: "x.png", mime: "image/png", size: fake.length }, fake, live(), reader)).toMatchObject({
      file: { kind: "unreadable", reason: "unreadable", detail: "it is labelled an image, but its bytes are not one" },
    });
  });

  it("a text file with binary content is refused as binary", async () => {
    const data = Buffer.from([0x68, 0x69, 0x00, 0x01, 0x02]);
    expect(await extractFile({ id: "F1", name: "dump.log", mime: "text/plain", size: data.length }, data, live(), reader)).toMatchObject({
      file: { kind: "unreadable", reason: "unsupported_type", detail: "it holds binary data, not text" },
    });
  });
});

describe("text", () => {
  it("is UTF-8 with invalid bytes replaced and counted; a real U+FFFD in the file is not counted", () => {
    expect(decodeText(Buffer.from("\uFEFFhéllo", "utf8"))).toEqual({ text: "héllo", replaced: 0 });
    const broken = Buffer.concat([Buffer.from("a"), Buffer.from([0xff, 0xfe]), Buffer.from("b\uFFFDc", "utf8"), Buffer.from([0xc3])]);
    const decoded = decodeText(broken);
    expect(decoded.text).toBe("a\uFFFD\uFFFDb\uFFFDc\uFFFD");
    expect(decoded.replaced).toBe(3);
  });
});

describe("images", () => {
  it("a 4,000×3,000 PNG is resized so its long side is 2,048 px, within 5 MB", async () => {
    const result = await prepareImage(await png(4_000, 3_000));
    expect(result).toMatchObject({
      kind: "image",
      mime: "image/png",
      width: 2_048,
      height: 1_536,
      originalWidth: 4_000,
      originalHeight: 3_000,
    });
    if (result.kind !== "image") throw new Error("not read");
    expect(result.data.length).toBeLessThanOrEqual(MAX_IMAGE_BYTES);
    expect(await sharp(result.data).metadata()).toMatchObject({ width: 2_048, height: 1_536, format: "png" });
  });

  it("a small image keeps its size; a GIF becomes its first frame as PNG", async () => {
    expect(await prepareImage(await png(300, 200))).toMatchObject({ kind: "image", width: 300, height: 200 });
    const gif = await sharp({ create: { width: 64, height: 32, channels: 3, background: "#0000ff" } })
      .gif()
      .toBuffer();
    expect(await prepareImage(gif)).toMatchObject({ kind: "image", mime: "image/png", width: 64, height: 32 });
  });

  it("noise that stays over 5 MB as PNG goes as JPEG", async () => {
    const noise = await sharp(randomBytes(2_048 * 1_400 * 3), {
      raw: { width: 2_048, height: 1_400, channels: 3 },
    })
      .png({ compressionLevel: 0 })
      .toBuffer();
    expect(noise.length).toBeGreaterThan(MAX_IMAGE_BYTES);
    const result = await prepareImage(noise);
    expect(result).toMatchObject({ kind: "image", mime: "image/jpeg" });
    if (result.kind === "image") expect(result.data.length).toBeLessThanOrEqual(MAX_IMAGE_BYTES);
  });

  it("a decompression bomb (a tiny file declaring 20,000×20,000) is refused from its header, not decoded", async () => {
    const bomb = bombPng(20_000, 20_000);
    expect(bomb.length).toBeLessThan(1_000);
    expect(await prepareImage(bomb)).toEqual({
      kind: "unreadable",
      detail: "the image is 20000×20000 (400 megapixels), more than the 50 megapixels the bot decodes",
    });
  });

  it("bytes that are no image are refused with the reason", async () => {
    expect(await prepareImage(Buffer.from("garbage"))).toMatchObject({
      kind: "unreadable",
      detail: expect.stringContaining("could not be read"),
    });
  });
});

describe("PDFs", () => {
  it("a 3-page PDF's text comes page by page with the page count", async () => {
    expect(await extractPdfText(await pdf(3), live())).toEqual({
      kind: "pdf",
      pageCount: 3,
      pages: ["Page 1 of the spec", "Page 2 of the spec", "Page 3 of the spec"],
    });
  });

  it("an encrypted PDF and a broken one come back with the reason", async () => {
    expect(await extractPdfText(await encryptedPdf(), live())).toEqual({
      kind: "unreadable",
      detail: "the PDF is encrypted (it needs a password)",
    });
    expect(await extractPdfText(Buffer.from("%PDF-1.7\nnot really"), live())).toMatchObject({
      kind: "unreadable",
      detail: expect.stringMatching(/^the PDF is broken/),
    });
  });

  it("a 300-page PDF is read off the event loop: a timer is never more than 1 s late meanwhile", async () => {
    const bytes = await pdf(300, (page) => `Page ${page}: ${"lorem ipsum dolor sit amet ".repeat(20)}`);
    let worst = 0;
    let last = performance.now();
    const timer = setInterval(() => {
      const now = performance.now();
      worst = Math.max(worst, now - last - 10);
      last = now;
    }, 10);
    try {
      const result = await extractPdfText(bytes, live());
      expect(result).toMatchObject({ kind: "pdf", pageCount: 300 });
      if (result.kind === "pdf") expect(result.pages[299]).toMatch(/^Page 300: lorem/);
    } finally {
      clearInterval(timer);
    }
    expect(worst).toBeLessThan(1_000);
  });

  it("the run's signal stops the reading", async () => {
    const run = new AbortController();
    const reading = extractPdfText(await pdf(300), run.signal);
    run.abort();
    expect(await reading).toEqual({ kind: "stopped" });
  });
});
