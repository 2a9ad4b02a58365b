// The PDF reader's worker thread, as source text: it runs plain JavaScript (eval), so the same
// code works under tsx, vitest and the compiled build. It loads unpdf (pdf.js with
// isEvalSupported: false, so a crafted PDF can't run script) and answers one request: the text
// of the first pages, page by page. On Linux a thread has its own nice value: the reader lowers
// its own, so on a busy machine the event loop's thread gets the CPU first.
export const PDF_WORKER_SOURCE = String.raw`
const { parentPort, workerData } = require("node:worker_threads");
try {
  const os = require("node:os");
  os.setPriority(Math.min(19, os.getPriority() + 10));
} catch {}
parentPort.once("message", async ({ data, maxPages }) => {
  let pdf;
  try {
    const { getDocumentProxy } = await import(workerData.unpdfUrl);
    pdf = await getDocumentProxy(data, { isEvalSupported: false, verbosity: 0, stopAtErrors: false });
    const pages = [];
    const last = Math.min(pdf.numPages, maxPages);
    for (let number = 1; number <= last; number++) {
      const page = await pdf.getPage(number);
      const content = await page.getTextContent();
      let text = "";
      for (const item of content.items) if (typeof item.str === "string") text += item.str + (item.hasEOL ? "\n" : "");
      pages.push(text.trim());
      page.cleanup();
    }
    parentPort.postMessage({ kind: "ok", pageCount: pdf.numPages, pages });
  } catch (error) {
    const name = error && error.name;
    parentPort.postMessage(
      name === "PasswordException"
        ? { kind: "encrypted" }
        : { kind: "broken", detail: String((error && error.message) || error).slice(0, 200) },
    );
  } finally {
    if (pdf) await pdf.destroy().catch(() => {});
  }
});
`;
