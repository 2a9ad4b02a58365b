// Files for the file tests, made in the test (no blobs from outside): PNGs by sharp, PDFs by
// pdf-lib (an encrypted one with a security handler whose password nobody knows), a PNG
// header that declares a decompression bomb; a surface's file source over the fake file
// host, as a chat surface would register it; and the file readers a bot process has.
import { crc32, deflateSync } from "node:zlib";
import { PDFDocument, PDFHexString, StandardFonts } from "pdf-lib";
import sharp from "sharp";
import { loadConfig } from "../../src/config.js";
import { downloadUrl } from "../../src/files/download.js";
import { fileHostsOf } from "../../src/files/file-hosts.js";
import type { FileDescriptor, SurfaceFiles } from "../../src/files/file-ref.js";
import { isHtmlFile } from "../../src/files/file-kind.js";
import { createFileReader, type FileReader, type FileReaderLimits } from "../../src/files/reader/file-reader.js";
import { silentLogger } from "../../src/logger.js";

/** The readers a bot process would have with the default settings, or these limits: close it after the tests. */
export function testFileReader(limits: Partial<FileReaderLimits> = {}): FileReader {
  return createFileReader({ ...loadConfig({}).files, ...limits }, silentLogger);
}

export async function png(width: number, height: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: 200, g: 60, b: 20 } } })
    .png({ compressionLevel: 1 })
    .toBuffer();
}

export async function pdf(pages: number, text: (page: number) => string = (page) => `Page ${page} of the spec`): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let page = 1; page <= pages; page++) doc.addPage().drawText(text(page), { x: 40, y: 700, size: 12, font });
  return Buffer.from(await doc.save());
}

/** A PDF under the standard security handler (RC4, 40 bit) with a user password: it can't be opened without it. */
export async function encryptedPdf(): Promise<Buffer> {
  const doc = await PDFDocument.create();
  doc.addPage().drawText("secret", { x: 40, y: 700, size: 12, font: await doc.embedFont(StandardFonts.Helvetica) });
  const context = doc.context;
  const handler = context.obj({
    Filter: "Standard",
    V: 1,
    R: 2,
    Length: 40,
    P: -44,
    O: PDFHexString.of("11".repeat(32)),
    U: PDFHexString.of("22".repeat(32)),
  });
  context.trailerInfo.Encrypt = context.register(handler);
  context.trailerInfo.ID = context.obj([PDFHexString.of("33".repeat(16)), PDFHexString.of("33".repeat(16))]);
  return Buffer.from(await doc.save({ useObjectStreams: false }));
}

function chunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A few hundred bytes that declare a `width`×`height` RGB image: decoding it would need gigabytes. */
export function bombPng(width: number, height: number): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(Buffer.alloc(4096))),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

/** A file as a surface puts it in a task: its link in `source.url`. */
export function described(id: string, name: string, mime: string, url: string, size?: number): FileDescriptor {
  return { id, name, mime, ...(size === undefined ? {} : { size }), source: { url } };
}

/** Files fetched from the fake host like Slack's: only from `origins` (the platform's file hosts), each request with the token. */
export function urlFiles(options: { token?: string; origins: readonly string[]; uploads?: boolean }): SurfaceFiles {
  const hosts = fileHostsOf("Slack", options.origins);
  return {
    uploads: options.uploads ?? false,
    refFor(file) {
      return {
        id: file.id,
        name: file.name,
        mime: file.mime,
        ...(file.size === undefined ? {} : { size: file.size }),
        download: (request) =>
          downloadUrl({
            ...request,
            url: file.source.url ?? "",
            hosts,
            ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
            ...(file.size === undefined ? {} : { declaredSize: file.size }),
            expectsHtml: isHtmlFile(file.name, file.mime),
          }),
      };
    },
  };
}
