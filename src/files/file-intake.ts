// One attached file from reference to stored record: taken from the store when an earlier run
// (or this one, before a restart) read it already; otherwise checked (type, declared size)
// before anything is fetched, downloaded by the surface within the limits, extracted and stored.
// A read is noted in the store before it starts: a file whose reading the process did not
// survive (kill -9, the container's memory limit) is not fetched or read again after the restart.
import { createHash } from "node:crypto";
import type { FileReason } from "../contracts/types.js";
import { extractFile } from "./extract.js";
import type { FileLimits, FileRef } from "./file-ref.js";
import { declaredKind } from "./file-kind.js";
import { formatBytes } from "./file-names.js";
import type { FileStore, StoredFile } from "./file-store.js";
import type { FileReader } from "./reader/file-reader.js";

export type Intake =
  | { readonly kind: "stored"; readonly file: StoredFile; readonly reused: boolean }
  | { readonly kind: "failed"; readonly reason: FileReason; readonly detail: string };

export interface IntakeOptions {
  readonly conversationKey: string;
  readonly limits: FileLimits;
  readonly signal: AbortSignal;
  readonly store: FileStore;
  readonly reader: FileReader;
}

export const NOT_READ_AGAIN_DETAIL = "the bot stopped while it read this file, so it is not read again";

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
  if (await options.store.wasReading(options.conversationKey, id).catch(() => false)) {
    const size = ref.size ?? 0;
    const file: StoredFile = {
      version: 1,
      id,
      name: ref.name,
      mime: ref.mime,
      size,
      storedAt: Date.now(),
      kind: "unreadable",
      reason: "unreadable",
      detail: NOT_READ_AGAIN_DETAIL,
    };
    await options.store.save(options.conversationKey, file).catch(() => undefined);
    return { kind: "stored", file, reused: false };
  }
  const download = await ref
    .download({ signal: options.signal, maxBytes: options.limits.maxBytes, timeoutMs: options.limits.downloadTimeoutMs })
    .catch((error: unknown) => ({
      kind: "failed" as const,
      reason: "failed_download" as const,
      detail: `the download failed (${error instanceof Error ? error.message : String(error)})`,
    }));
  if (download.kind === "failed") return download;
  // A store that fails here only loses the note: the file is read as before.
  await options.store.startReading(options.conversationKey, id).catch(() => undefined);
  const extracted = await extractFile(
    { id, name: ref.name, mime: ref.mime, size: download.data.length },
    download.data,
    options.signal,
    options.reader,
  );
  if (extracted.kind === "stopped") {
    await options.store.endReading(options.conversationKey, id).catch(() => undefined);
    return { kind: "failed", reason: "failed_download", detail: "the run's time ran out (or it was stopped) while the file was read" };
  }
  // A store that fails only costs a download next time: the run goes on with what it read.
  await options.store.save(options.conversationKey, extracted.file, extracted.image).catch(() => undefined);
  await options.store.endReading(options.conversationKey, id).catch(() => undefined);
  return { kind: "stored", file: extracted.file, reused: false };
}
