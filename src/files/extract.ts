// A downloaded file's bytes as the record the store keeps: text decoded, a PDF's pages read,
// an image resized; what can't be read becomes an `unreadable` record with the reason, so the
// next run does not fetch it again to learn the same.
import type { FileInfo } from "../agent/types.js";
import { decodeText } from "./extract-text.js";
import { prepareImage } from "./extract-image.js";
import { extractPdfText } from "./extract-pdf.js";
import { declaredKind, looksBinary, sniffedKind } from "./file-kind.js";
import type { StoredFile, StoredImage } from "./file-store.js";

export type Extracted =
  | { readonly kind: "done"; readonly file: StoredFile; readonly image?: StoredImage }
  /** The run's signal ended the reading: nothing is known about the file, nothing is stored. */
  | { readonly kind: "stopped" };

/** `file.size` is the bytes received. Never rejects. */
export async function extractFile(file: FileInfo & { readonly size: number }, data: Buffer, signal: AbortSignal): Promise<Extracted> {
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
  if (kind === "pdf") {
    const pdf = await extractPdfText(data, signal);
    if (pdf.kind === "stopped") return pdf;
    if (pdf.kind === "unreadable") return unreadable("unreadable", pdf.detail);
    return { kind: "done", file: { ...base, kind: "pdf", pageCount: pdf.pageCount, pages: [...pdf.pages] } };
  }
  const image = await prepareImage(data);
  if (image.kind === "refused") return unreadable("unreadable", image.detail);
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
    image: { mime: image.mime, data: image.data.toString("base64") },
  };
}
