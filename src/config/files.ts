// Files people attach (src/files): per file, per message, per run, per download, and what reading
// one may cost the bot (the file readers: how many at once, their memory, their time, and how far
// a PDF may expand).
import { area } from "./area.js";
import { wholeNumber } from "./values.js";
import { variable } from "./variable.js";

export const filesArea = area({
  title: "Files",
  about: "What people attach to a message and the bot reads; see [files](files.md).",
  variables: {
    maxBytes: variable("FILE_MAX_BYTES", wholeNumber(1_024, 104_857_600), {
      default: 20_971_520,
      meaning:
        "largest attached file read, checked from the size the platform declares before any download and again while it streams (a server that sends more is cut off there)",
    }),
    maxPerMessage: variable("FILE_MAX_PER_MESSAGE", wholeNumber(1, 100), {
      default: 8,
      meaning: "files of one message that are read; the ones after are named in the trace as skipped",
    }),
    totalTokens: variable("FILE_TOTAL_TOKENS", wholeNumber(1_000, 1_000_000), {
      default: 30_000,
      meaning:
        "extracted text of one message's files in the prompt (shared: smaller files first), at most 40% of the model's window; `read_attachment` reads the rest",
    }),
    downloadTimeoutMs: variable("FILE_DOWNLOAD_TIMEOUT_MS", wholeNumber(1_000, 600_000), {
      default: 30_000,
      meaning: "per download; downloads also count against the run's `AGENT_RUN_TIMEOUT_MS`",
    }),
    maxExpandedBytes: variable("FILE_MAX_EXPANDED_BYTES", wholeNumber(1_048_576, 4_294_967_296), {
      shownDefault: "5 × `FILE_MAX_BYTES`",
      meaning:
        "what a PDF's compressed streams may decode to in all, measured before the PDF is read; a PDF that expands further is refused and named in the run's trace",
    }),
    readers: variable("FILE_READERS", wholeNumber(1, 16), {
      default: 2,
      meaning: "PDFs and images decoded at once by one bot process, each in a reader process of its own; the others wait their turn",
    }),
    readerMemoryMb: variable("FILE_READER_MEMORY_MB", wholeNumber(256, 16_384), {
      default: 512,
      meaning:
        "memory one reader process may take (its data segment, enforced by the kernel); a file that needs more is refused. A bot process takes at most `FILE_READERS` × this for files",
    }),
    readTimeoutMs: variable("FILE_READ_TIMEOUT_MS", wholeNumber(1_000, 600_000), {
      default: 30_000,
      meaning:
        "per file read (a PDF's pages, an image's resizing), apart from the run's deadline; a reader past it is ended and the file named in the trace",
    }),
  },
  shape: ({ maxExpandedBytes, ...files }) => ({ files: { ...files, maxExpandedBytes: maxExpandedBytes ?? 5 * files.maxBytes } }),
});
