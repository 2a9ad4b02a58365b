// How a stored file reads as text, shared by the prompt's parts and read_attachment: the label
// that names a file, a PDF's pages with their numbers, and the call that reads on.
import { formatBytes, promptName } from "./file-names.js";

/** At most this many of a PDF's pages go into the prompt; read_attachment reads the rest. */
export const PROMPT_PDF_PAGES = 20;

/** `file F1: "report.pdf" (application/pdf, 1.2 MB)`: the id first, since names can repeat. */
export function fileLabel(file: { readonly id: string; readonly name: string; readonly mime: string; readonly size?: number }): string {
  const size = file.size === undefined ? "" : `, ${formatBytes(file.size)}`;
  return `file ${file.id}: "${promptName(file.name)}" (${file.mime || "unknown type"}${size})`;
}

/** Pages `from`…`to` (1-based, inclusive), each under its number. */
export function pagesText(pages: readonly string[], from: number, to = pages.length): string {
  return pages
    .slice(from - 1, to)
    .map((text, index) => `--- page ${from + index} ---\n${text === "" ? "(no text on this page)" : text}`)
    .join("\n\n");
}

/** The call the model makes to read on from here. */
export function readOnCall(fileId: string, at: { readonly from_page?: number; readonly from_token?: number }): string {
  return `read_attachment(${JSON.stringify({ file: fileId, ...at })})`;
}
