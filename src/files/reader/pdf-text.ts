// A PDF's text, page by page, inside the file reader's process: measured first (pdf-expansion.ts),
// so a file whose streams decode past the budget is refused before pdf.js inflates any of them,
// then read with unpdf (pdf.js with isEvalSupported: false, so a crafted PDF can't run script).
// At most `maxPages` pages and `maxTextChars` characters are kept (a page's text can be as large
// as the budget, and what is kept goes to the store), and pages are read for at most
// `pagesWithinMs` from the request (the first page always): a file of 100,000 pages gives the
// pages read by then, not a timeout.
import { getDocumentProxy } from "unpdf";
import { measureExpansion } from "./pdf-expansion.js";
import type { PdfLimits, ReadResult } from "./reader-protocol.js";

/** Never rejects. */
export async function readPdfText(data: Uint8Array, limits: PdfLimits): Promise<ReadResult> {
  const until = performance.now() + limits.pagesWithinMs;
  const expansion = await measureExpansion(data, limits.maxExpandedBytes);
  if (expansion.kind === "over") return { kind: "expands", budget: expansion.budget };
  let pdf: Awaited<ReturnType<typeof getDocumentProxy>> | undefined;
  try {
    pdf = await getDocumentProxy(data, { isEvalSupported: false, verbosity: 0, stopAtErrors: false });
    const pages: string[] = [];
    let chars = 0;
    const last = Math.min(pdf.numPages, limits.maxPages);
    for (let number = 1; number <= last && chars < limits.maxTextChars && (number === 1 || performance.now() < until); number++) {
      const page = await pdf.getPage(number).catch((error: unknown) => {
        // A page tree broken after some pages (or declaring more than it has): the pages before it are kept.
        if (pages.length === 0 || isOutOfMemory(error)) throw error;
        return undefined;
      });
      if (!page) break;
      const content = await page.getTextContent();
      let text = "";
      for (const item of content.items) if ("str" in item) text += item.str + (item.hasEOL ? "\n" : "");
      const kept = text.trim().slice(0, limits.maxTextChars - chars);
      pages.push(kept);
      chars += kept.length;
      page.cleanup();
    }
    return { kind: "pdf", pageCount: pdf.numPages, pages };
  } catch (error) {
    const name = error instanceof Error ? error.name : "";
    if (name === "PasswordException") return { kind: "unreadable", detail: "the PDF is encrypted (it needs a password)" };
    if (isOutOfMemory(error)) return { kind: "out_of_memory" };
    return { kind: "unreadable", detail: `the PDF is broken (${shortMessage(error)})` };
  } finally {
    await pdf?.destroy().catch(() => undefined);
  }
}

/** What V8 throws when the reader's memory ceiling refuses an allocation. */
export function isOutOfMemory(error: unknown): boolean {
  return error instanceof RangeError && /allocation failed|Invalid typed array length|Array buffer/i.test(error.message);
}

export function shortMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.length > 200 ? `${message.slice(0, 199)}…` : message;
}
