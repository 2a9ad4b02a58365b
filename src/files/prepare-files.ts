// The entry point the surfaces' files go through when a run starts: the files of one message,
// within the limits (FILE_MAX_PER_MESSAGE, FILE_MAX_BYTES, FILE_TOTAL_TOKENS, the download
// timeout and the run's deadline), as the parts that follow the person's words, and what
// became of each file for the trace. A file that can't be used is a note naming the reason;
// the run always goes on.
import type { TokenCounter } from "../tokens/token-counter.js";
import type { FileInfo } from "../contracts/types.js";
import { fileIdOf, intakeFile, type Intake } from "./file-intake.js";
import { fileParts, type IntakeOf, type PreparedFiles } from "./file-parts.js";
import type { FileLimits, FileRef } from "./file-ref.js";
import type { FileStore } from "./file-store.js";
import type { FileReader } from "./reader/file-reader.js";

export type { PreparedFiles };

export interface PrepareOptions {
  readonly conversationKey: string;
  readonly limits: FileLimits;
  /** The run's: aborts at its deadline or a Stop (downloads count against the run). */
  readonly signal: AbortSignal;
  /** The model sees images (model-vision.ts); without it an image is a note. */
  readonly vision: boolean;
  readonly counter: TokenCounter;
  readonly store: FileStore;
  /** Decodes PDFs and images (one per process, shared by every run). */
  readonly reader: FileReader;
  /** False where the channel's settings say `files: false`: each file gets a note, nothing is fetched. */
  readonly enabled?: boolean;
  /** The extracted text's share of the prompt, when the model's window makes it less than FILE_TOTAL_TOKENS. */
  readonly tokenBudget?: number;
}

/** Files fetched at once: each may hold up to FILE_MAX_BYTES in memory. */
const DOWNLOAD_CONCURRENCY = 2;

function infoOf(ref: FileRef): FileInfo {
  return { id: fileIdOf(ref.id), name: ref.name, mime: ref.mime, ...(ref.size === undefined ? {} : { size: ref.size }) };
}

const skipped = (reason: "too_many" | "files_off", detail: string): Intake => ({ kind: "failed", reason, detail });

/** Never rejects. */
export async function prepareFiles(refs: readonly FileRef[], options: PrepareOptions): Promise<PreparedFiles> {
  if (refs.length === 0) return { parts: [], outcomes: [] };
  const files: IntakeOf[] = new Array(refs.length);
  const { maxPerMessage } = options.limits;
  const fetched: number[] = [];
  for (const [index, ref] of refs.entries()) {
    if (options.enabled === false)
      files[index] = { info: infoOf(ref), intake: skipped("files_off", "files are switched off in this channel (its `files` setting)") };
    else if (index >= maxPerMessage)
      files[index] = {
        info: infoOf(ref),
        intake: skipped("too_many", `only the first ${maxPerMessage} files of a message are read (FILE_MAX_PER_MESSAGE)`),
      };
    else fetched.push(index);
  }
  let next = 0;
  const worker = async () => {
    while (next < fetched.length) {
      const index = fetched[next++]!;
      const ref = refs[index]!;
      files[index] = { info: infoOf(ref), intake: await intakeFile(ref, options).catch(failedUnexpectedly) };
    }
  };
  await Promise.all(Array.from({ length: Math.min(DOWNLOAD_CONCURRENCY, fetched.length) }, worker));
  const budget = Math.min(options.limits.totalTokens, options.tokenBudget ?? Number.POSITIVE_INFINITY);
  return fileParts(files, { conversationKey: options.conversationKey, vision: options.vision, budget, counter: options.counter });
}

function failedUnexpectedly(error: unknown): Intake {
  return {
    kind: "failed",
    reason: "failed_download",
    detail: `reading it failed (${error instanceof Error ? error.message : String(error)})`,
  };
}
