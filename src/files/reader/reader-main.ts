// The file reader's process: the bot starts it (file-reader.ts) with a memory ceiling the kernel
// enforces, sends it one file at a time over IPC and kills it past its time limit. Whatever a
// hostile PDF or image does here, it does to this process only. It leaves with its parent: a
// bot killed mid-read leaves no reader behind once the read in hand ends.
import os from "node:os";
import sharp from "sharp";
import { isOutOfMemory, readPdfText, shortMessage } from "./pdf-text.js";
import { prepareImage } from "./prepare-image.js";
import type { ReadAnswer, ReadRequest, ReadResult } from "./reader-protocol.js";

// One file at a time, nothing kept between them: libvips' cache would only hold memory here.
sharp.cache(false);
try {
  // Below the bot's own threads on a busy machine: the conversations' event loop gets the CPU first.
  os.setPriority(Math.min(19, os.getPriority() + 10));
} catch {
  // Not allowed here (some containers): the reader runs at the bot's priority.
}

process.on("disconnect", () => process.exit(0));
process.on("message", (request: ReadRequest) => {
  void read(request).then((result) => {
    const answer: ReadAnswer = { id: request.id, result, rss: process.memoryUsage.rss() };
    process.send?.(answer);
  });
});
// The bot sends nothing before this: a message that came before the listener would be lost.
process.send?.({ ready: true });

async function read(request: ReadRequest): Promise<ReadResult> {
  const data = new Uint8Array(request.data.buffer, request.data.byteOffset, request.data.byteLength);
  try {
    if (request.kind === "pdf") return await readPdfText(data, request);
    const image = await prepareImage(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
    if (image.kind === "refused") return { kind: "unreadable", detail: image.detail };
    return { ...image, kind: "image", data: new Uint8Array(image.data) };
  } catch (error) {
    if (isOutOfMemory(error)) return { kind: "out_of_memory" };
    return { kind: "unreadable", detail: `the reader failed (${shortMessage(error)})` };
  }
}
