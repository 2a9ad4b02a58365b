// A file on this machine as a download, for the console's `/attach PATH`: any file the
// console's own user can read, under the same limits as a chat platform's (its size checked
// before it is read and again while reading, the run's signal and the timeout obeyed).
import { open } from "node:fs/promises";
import type { Download, DownloadRequest } from "./file-ref.js";
import { formatBytes } from "./file-names.js";

const CHUNK = 1024 * 1024;

/** Never rejects. */
export async function readLocalFile(path: string, request: DownloadRequest): Promise<Download> {
  const signal = AbortSignal.any([request.signal, AbortSignal.timeout(request.timeoutMs)]);
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(path, "r");
    const stat = await handle.stat();
    if (!stat.isFile()) return { kind: "failed", reason: "failed_download", detail: `${path} is not a file` };
    if (stat.size > request.maxBytes)
      return {
        kind: "failed",
        reason: "too_big",
        detail: `the file is ${formatBytes(stat.size)}, more than the limit of ${formatBytes(request.maxBytes)} (FILE_MAX_BYTES)`,
      };
    // The file may grow while it is read: never more than the limit is held.
    const data = Buffer.allocUnsafe(Math.min(request.maxBytes, Math.max(stat.size, 0)));
    let filled = 0;
    while (filled < data.length) {
      signal.throwIfAborted();
      const { bytesRead } = await handle.read(data, filled, Math.min(CHUNK, data.length - filled), filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return { kind: "ok", data: data.subarray(0, filled) };
  } catch (error) {
    if (signal.aborted) return { kind: "failed", reason: "failed_download", detail: "the run's time ran out while the file was read" };
    const code = (error as { code?: unknown }).code;
    return {
      kind: "failed",
      reason: "failed_download",
      detail: `${path} can't be read (${typeof code === "string" ? code : String(error)})`,
    };
  } finally {
    await handle?.close().catch(() => undefined);
  }
}
