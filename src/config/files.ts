// Files people attach (src/files): per file, per message, per run, per download.
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
  },
  shape: (files) => ({ files }),
});
