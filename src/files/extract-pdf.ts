// A PDF's text, page by page, read in a worker thread of its own: a 300-page PDF never holds
// the event loop that serves every conversation (parsing one page can take longer than 50 ms).
// The worker is bounded in memory and ends with the run's signal; an encrypted or broken PDF
// comes back as the reason.
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { PDF_WORKER_SOURCE } from "./pdf-worker-source.js";

/** Pages whose text is kept (and readable with read_attachment); the prompt shows fewer. */
export const MAX_PDF_PAGES = 1_000;
const WORKER_HEAP_MB = 384;

export type PdfText =
  | { readonly kind: "ok"; readonly pageCount: number; readonly pages: readonly string[] }
  | { readonly kind: "unreadable"; readonly detail: string }
  /** The run's signal ended the reading: nothing is known about the file itself. */
  | { readonly kind: "stopped" };

const unpdfUrl = pathToFileURL(createRequire(import.meta.url).resolve("unpdf")).href;

type WorkerAnswer =
  | { readonly kind: "ok"; readonly pageCount: number; readonly pages: string[] }
  | { readonly kind: "encrypted" }
  | { readonly kind: "broken"; readonly detail: string };

/** Never rejects. */
export function extractPdfText(data: Uint8Array, signal: AbortSignal, maxPages = MAX_PDF_PAGES): Promise<PdfText> {
  if (signal.aborted) return Promise.resolve({ kind: "stopped" });
  // A copy of its own, moved to the worker: `data` may share its memory with other buffers.
  const copy = new Uint8Array(data);
  return new Promise<PdfText>((resolve) => {
    const worker = new Worker(PDF_WORKER_SOURCE, {
      eval: true,
      workerData: { unpdfUrl },
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
      stdout: true,
      stderr: true,
    });
    // pdf.js warns on stdout about fonts and the like: read and dropped, never shown as the bot's output.
    worker.stdout.resume();
    worker.stderr.resume();
    let settled = false;
    const finish = (result: PdfText) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener("abort", onAbort);
      void worker.terminate();
      resolve(result);
    };
    const onAbort = () => finish({ kind: "stopped" });
    signal.addEventListener("abort", onAbort, { once: true });
    worker.once("message", (answer: WorkerAnswer) => finish(fromWorker(answer)));
    worker.once("error", (error: Error & { code?: string }) =>
      finish({
        kind: "unreadable",
        detail:
          error.code === "ERR_WORKER_OUT_OF_MEMORY"
            ? "reading it needed more memory than the bot allows"
            : `the PDF reader failed (${error.message})`,
      }),
    );
    worker.once("exit", () => finish({ kind: "unreadable", detail: "the PDF reader ended without an answer" }));
    worker.postMessage({ data: copy, maxPages }, [copy.buffer]);
  });
}

function fromWorker(answer: WorkerAnswer): PdfText {
  if (answer.kind === "ok") return answer;
  if (answer.kind === "encrypted") return { kind: "unreadable", detail: "the PDF is encrypted (it needs a password)" };
  return { kind: "unreadable", detail: `the PDF is broken (${answer.detail})` };
}
