// One attached file from reference to stored record: taken from the store when an earlier run
// (or this one, before a restart) read it already; otherwise checked (type, declared size)
// before anything is fetched, downloaded by the surface within the limits, extracted and stored.
import { createHash } from "node:crypto";
import type { FileReason } from "../agent/types.js";
import { extractFile } from "./extract.js";
import type { FileLimits, FileRef } from "./file-ref.js";
import { declaredKind } from "./file-kind.js";
import { formatBytes } from "./file-names.js";
import type { FileStore, StoredFile } from "./file-store.js";

export type Intake =
  | { readonly kind: "stored"; readonly file: StoredFile; readonly reused: boolean }
  | { readonly kind: "failed"; readonly reason: FileReason; readonly detail: string };

export interface IntakeOptions {
  readonly conversationKey: string;
  readonly limits: FileLimits;
  readonly signal: AbortSignal;
  readonly store: FileStore;
}

const SAFE_ID = /^[A-Za-z0-9._-]{1,100}$/;

/** The id a file is stored and shown under: the platform's own when it is plain, else a digest of it (ids are untrusted). */
export function fileIdOf(platformId: string): string {
  return SAFE_ID.test(platformId) ? platformId : `f-${createHash("sha256").update(platformId).digest("base64url").slice(0, 20)}`;
}

/** Never rejects: a failure is the reason and a sentence. */
export async function intakeFile(ref: FileRef, options: IntakeOptions): Promise<Intake> {
  const id = fileIdOf(ref.id);
  const known = await options.store.load(options.conversationKey, id).catch(() => undefined);
  if (known) return { kind: "stored", file: known, reused: true };
  if (ref.unavailable) return ref.unavailable;
  if (declaredKind(ref.name, ref.mime) === "other")
    return { kind: "failed", reason: "unsupported_type", detail: `files of type ${ref.mime || "unknown"} can't be read` };
  if (ref.size !== undefined && ref.size > options.limits.maxBytes)
    return {
      kind: "failed",
      reason: "too_big",
      detail: `the file is ${formatBytes(ref.size)}, more than the limit of ${formatBytes(options.limits.maxBytes)} (FILE_MAX_BYTES)`,
    };
  const download = await ref
    .download({ signal: options.signal, maxBytes: options.limits.maxBytes, timeoutMs: options.limits.downloadTimeoutMs })
    .catch((error: unknown) => ({
      kind: "failed" as const,
      reason: "failed_download" as const,
      detail: `the download failed (${error instanceof Error ? error.message : String(error)})`,
    }));
  if (download.kind === "failed") return download;
  const extracted = await extractFile({ id, name: ref.name, mime: ref.mime, size: download.data.length }, download.data, options.signal);
  if (extracted.kind === "stopped")
    return { kind: "failed", reason: "failed_download", detail: "the run's time ran out (or it was stopped) while the file was read" };
  // A store that fails only costs a download next time: the run goes on with what it read.
  await options.store.save(options.conversationKey, extracted.file, extracted.image).catch(() => undefined);
  return { kind: "stored", file: extracted.file, reused: false };
}
