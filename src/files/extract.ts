// A downloaded file's bytes as the record the store keeps: text decoded here, a PDF's pages read
// and an image resized by the file reader (in a process of its own); what can't be read becomes
// an `unreadable` record with the reason, so the next run does not fetch it again to learn the same.
import type { FileInfo } from "../contracts/types.js";
import { decodeText } from "./extract-text.js";
import { declaredKind, looksBinary, sniffedKind } from "./file-kind.js";
import type { StoredFile, StoredImage } from "./file-store.js";
import type { FileReader } from "./reader/file-reader.js";

export type Extracted =
  | { readonly kind: "done"; readonly file: StoredFile; readonly image?: StoredImage }
  /** The run's signal ended the reading: nothing is known about the file, nothing is stored. */
  | { readonly kind: "stopped" };

/** `file.size` is the bytes received. Never rejects. */
export async function extractFile(
  file: FileInfo & { readonly size: number },
  data: Buffer,
  signal: AbortSignal,
  reader: FileReader,
): Promise<Extracted> {
  const base = { version: 1 as const, id: file.id, name: file.name, mime: file.mime, size: file.size, storedAt: Date.now() };
  const unreadable = (reason: "unreadable" | "unsupported_type", detail: string): Extracted => ({
    kind: "done",
    file: { ...base, kind: "unreadable", reason, detail },
  });
  const declared = declaredKind(file.name, file.mime);
  const kind = sniffedKind(data) ?? (declared === "text" ? "text" : undefined);
  if (kind === undefined)
    return declared === "other"
      ? unreadable("unsupported_type", `files of type ${file.mime || "unknown"} can't be read`)
      : unreadable("unreadable", `it is labelled ${declared === "pdf" ? "a PDF" : "an image"}, but its bytes are not one`);
  if (kind === "text") {
    if (looksBinary(data)) return unreadable("unsupported_type", "it holds binary data, not text");
    const { text, replaced } = decodeText(data);
    return { kind: "done", file: { ...base, kind: "text", text, replaced } };
  }
  const read = await reader.read(kind, data, signal);
  if (read.kind === "stopped") return read;
  if (read.kind === "unreadable") return unreadable("unreadable", read.detail);
  if (read.kind === "pdf") return { kind: "done", file: { ...base, kind: "pdf", pageCount: read.pageCount, pages: read.pages } };
  const image = read;
  return {
    kind: "done",
    file: {
      ...base,
      kind: "image",
      imageMime: image.mime,
      width: image.width,
      height: image.height,
      originalWidth: image.originalWidth,
      originalHeight: image.originalHeight,
    },
    image: { mime: image.mime, data: Buffer.from(image.data.buffer, image.data.byteOffset, image.data.byteLength).toString("base64") },
  };
}
