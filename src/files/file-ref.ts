// The neutral description of an attached file that every surface produces, and the one thing a
// surface does with it: download it within limits. Everything after the download (extraction,
// the store, the model's parts) is the same for Slack, Discord and the console.
import { z } from "zod";
import type { FileInfo, FileReason, TaskOrigin } from "../contracts/types.js";

/** FILE_MAX_BYTES, FILE_MAX_PER_MESSAGE, FILE_TOTAL_TOKENS, FILE_DOWNLOAD_TIMEOUT_MS (the readers' own are in reader/file-reader.ts). */
export interface FileLimits {
  readonly maxBytes: number;
  readonly maxPerMessage: number;
  /** Extracted text of one run's files in the prompt (read_attachment reads the rest). */
  readonly totalTokens: number;
  readonly downloadTimeoutMs: number;
}

/**
 * A file as a surface lists it in a task: plain data, kept in the intake record, so any worker (or
 * the next start) can fetch it. `source` is the surface's own (its URL, message id…); the core never reads it.
 */
export const FileDescriptorSchema = z.object({
  id: z.string().min(1).max(200),
  name: z.string().max(1_000),
  mime: z.string().max(200),
  /** As the platform declared it: checked before any download. */
  size: z.number().int().nonnegative().optional(),
  source: z.record(z.string().max(100), z.string().max(8_000)),
});
export type FileDescriptor = z.infer<typeof FileDescriptorSchema>;

export interface DownloadRequest {
  /** Aborts at the run's deadline or a Stop. */
  readonly signal: AbortSignal;
  /** Never buffer more: a longer body is cut off here and refused. */
  readonly maxBytes: number;
  readonly timeoutMs: number;
}

export type DownloadFailure = Extract<FileReason, "too_big" | "missing_scope" | "expired_link" | "failed_download" | "off_platform_link">;

export type Download =
  | { readonly kind: "ok"; readonly data: Buffer /** The server's Content-Type, when it sent one. */; readonly mime?: string }
  | { readonly kind: "failed"; readonly reason: DownloadFailure; readonly detail: string };

/** A file ready to use: its description and the surface's way to fetch it. `download` must not reject. */
export interface FileRef extends FileInfo {
  download(request: DownloadRequest): Promise<Download>;
  /** Why it can't be fetched at all, known before any check of its type (no link, a description that failed). */
  readonly unavailable?: Extract<Download, { kind: "failed" }>;
}

/** A descriptor bound to a surface's download: the one way every surface builds its FileRef. */
export function fileRefOf(file: FileDescriptor, download: FileRef["download"]): FileRef {
  return { id: file.id, name: file.name, mime: file.mime, ...(file.size === undefined ? {} : { size: file.size }), download };
}

/** A file that can't be fetched, whatever its type: said before the type is checked, and by its download too. */
export function unavailableFileRef(file: FileDescriptor, failure: Extract<Download, { kind: "failed" }>): FileRef {
  return { ...fileRefOf(file, () => Promise.resolve(failure)), unavailable: failure };
}

/** What a surface registers for files: how its attachments are fetched, and whether it posts an answer's files. */
export interface SurfaceFiles {
  /** The file bound to the surface's own download (its token, its CDN, a fresh link after expiry). */
  refFor(file: FileDescriptor, origin: TaskOrigin): FileRef;
  /** True when the surface posts `outcome.files` with the answer: attach_file is offered only then. */
  readonly uploads: boolean;
  /**
   * The files of the message a thread reply answers (its root), read when the run starts from the task's
   * `contextSource` (never on the path to the platform's ack). Must not reject (nothing found: []).
   */
  rootFiles?(contextSource: Readonly<Record<string, string>>, origin: TaskOrigin, signal: AbortSignal): Promise<readonly FileDescriptor[]>;
  /**
   * The whole description of a file the event only named (Slack Connect's `check_file_info`), asked when the run
   * starts, before its type and size are checked. Must not reject: a file it can't describe comes back as it was.
   */
  describe?(file: FileDescriptor, origin: TaskOrigin, signal: AbortSignal): Promise<FileDescriptor>;
}
