// The bot's file readers: PDFs and images are decoded in reader processes of their own (see
// reader-process.ts), never in the bot's, at most FILE_READERS at once per bot process, each
// within FILE_READER_MEMORY_MB and FILE_READ_TIMEOUT_MS, so the worst a file can cost the
// bot is known whatever the format's compression does. A reader is kept warm between files
// (pdf.js and libvips load once) and retired after a failure, a large read or a quiet minute.
// What went wrong is said here, in one sentence a person can act on.
import type { Logger } from "../../logger.js";
import { formatBytes } from "../file-names.js";
import type { PdfLimits, ReadRequest, ReadResult } from "./reader-protocol.js";
import { ReaderProcess, type ProcessRead } from "./reader-process.js";

/** The reader's part of config.files. */
export interface FileReaderLimits {
  /** FILE_READERS: files decoded at once by this bot process; the others wait their turn. */
  readonly readers: number;
  readonly readerMemoryMb: number;
  readonly readTimeoutMs: number;
  /** FILE_MAX_EXPANDED_BYTES: what a PDF's streams may decode to, in all. */
  readonly maxExpandedBytes: number;
  /** FILE_MAX_BYTES: a PDF's text is kept up to this many characters, as much as a text file's. */
  readonly maxBytes: number;
}

/** Pages of one PDF whose text is kept (and readable with read_attachment); the prompt shows fewer. */
export const MAX_PDF_PAGES = 1_000;

export type FileReading =
  | Extract<ReadResult, { kind: "pdf" | "image" }>
  | { readonly kind: "unreadable"; readonly detail: string }
  /** The run's signal ended the reading: nothing is known about the file itself. */
  | { readonly kind: "stopped" };

export interface FileReader {
  /** Never rejects. */
  read(kind: "pdf" | "image", data: Uint8Array, signal: AbortSignal): Promise<FileReading>;
  /** Ends every reader; reads still waiting come back `stopped`. */
  close(): Promise<void>;
}

/** A warm reader grown past this share of its ceiling is retired rather than given the next file. */
const RETIRE_SHARE = 0.5;
const IDLE_MS = 60_000;

export function createFileReader(limits: FileReaderLimits, logger: Logger): FileReader {
  const idle: ReaderProcess[] = [];
  const busy = new Set<ReaderProcess>();
  const waiting: Array<() => void> = [];
  let idleTimer: NodeJS.Timeout | undefined;
  let taken = 0;
  let nextId = 1;
  let closed = false;

  /** Takes a reader slot (true), waiting for one if they are all taken, or says the wait is over (false). */
  const turn = (signal: AbortSignal): Promise<boolean> => {
    if (closed || signal.aborted) return Promise.resolve(false);
    if (taken < limits.readers) {
      taken++;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const onAbort = () => {
        waiting.splice(waiting.indexOf(handOver), 1);
        resolve(false);
      };
      // The slot passes from the reader that ends to this wait without being freed in between.
      const handOver = () => {
        signal.removeEventListener("abort", onAbort);
        resolve(!closed);
      };
      waiting.push(handOver);
      signal.addEventListener("abort", onAbort, { once: true });
    });
  };

  const release = (reader: ReaderProcess, keep: boolean) => {
    if (keep && !closed && reader.alive) idle.push(reader);
    else reader.kill();
    busy.delete(reader);
    const next = waiting.shift();
    if (next) next();
    else taken--;
    clearTimeout(idleTimer);
    if (idle.length > 0) {
      idleTimer = setTimeout(() => {
        for (const each of idle.splice(0)) each.kill();
      }, IDLE_MS);
      idleTimer.unref();
    }
  };

  return {
    async read(kind, data, signal) {
      if (!(await turn(signal))) return { kind: "stopped" };
      const reader = idle.pop() ?? new ReaderProcess({ memoryMb: limits.readerMemoryMb });
      busy.add(reader);
      const id = nextId++;
      const request: ReadRequest = kind === "pdf" ? { id, kind, data, ...pdfLimitsOf(limits) } : { id, kind, data };
      let outcome: ProcessRead = { kind: "stopped" };
      try {
        outcome = await reader.read(request, limits.readTimeoutMs, signal);
      } finally {
        release(reader, keepsWarm(outcome, limits));
      }
      if (outcome.kind === "crashed")
        logger.warn({ kind, cause: outcome.cause, stderr: outcome.stderr }, "a file reader process ended while it read a file");
      if (outcome.kind === "timed_out")
        logger.warn({ kind, timeoutMs: limits.readTimeoutMs }, "a file reader ran out of time and was ended");
      return readingOf(outcome, limits);
    },
    async close() {
      closed = true;
      clearTimeout(idleTimer);
      for (const handOver of waiting.splice(0)) handOver();
      await Promise.all([...idle.splice(0), ...busy].map((reader) => reader.killed()));
    },
  };
}

/** Pages are read for half the read's time at most: the pages read by then are kept rather than all lost at the limit. */
function pdfLimitsOf(limits: FileReaderLimits): PdfLimits {
  return {
    maxPages: MAX_PDF_PAGES,
    maxExpandedBytes: limits.maxExpandedBytes,
    maxTextChars: limits.maxBytes,
    pagesWithinMs: limits.readTimeoutMs / 2,
  };
}

/** A reader that answered and stayed small reads the next file; any other is ended. */
function keepsWarm(outcome: ProcessRead, limits: FileReaderLimits): boolean {
  if (outcome.kind !== "answered" || outcome.result.kind === "out_of_memory") return false;
  return outcome.rss < limits.readerMemoryMb * 1024 * 1024 * RETIRE_SHARE;
}

/** The reader's outcome as the file's record will say it. */
export function readingOf(outcome: ProcessRead, limits: Pick<FileReaderLimits, "readerMemoryMb" | "readTimeoutMs">): FileReading {
  const memory = `reading it needed more than the ${limits.readerMemoryMb} MB of memory the bot gives one file (FILE_READER_MEMORY_MB)`;
  switch (outcome.kind) {
    case "stopped":
      return outcome;
    case "timed_out":
      return { kind: "unreadable", detail: `reading it took longer than ${limits.readTimeoutMs / 1_000} s (FILE_READ_TIMEOUT_MS)` };
    case "crashed":
      if (outcome.cause === "out_of_memory") return { kind: "unreadable", detail: memory };
      return {
        kind: "unreadable",
        detail:
          outcome.cause === "signal"
            ? `the file reader ended while it read it, most likely out of its ${limits.readerMemoryMb} MB of memory (FILE_READER_MEMORY_MB)`
            : "the file reader ended while it read it",
      };
    case "answered": {
      const { result } = outcome;
      if (result.kind === "expands")
        return { kind: "unreadable", detail: `it expands to more than ${formatBytes(result.budget)} (FILE_MAX_EXPANDED_BYTES)` };
      if (result.kind === "out_of_memory") return { kind: "unreadable", detail: memory };
      return result;
    }
  }
}
