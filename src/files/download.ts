// Fetches one file over HTTP within its limits, for the surfaces' FileRef.download: the size
// is checked from what was declared before anything is fetched and again while the body
// streams (a server that sends more than it said is cut off at the limit: never more than the
// limit is held), the download times out and aborts with the run, every request goes to the
// platform's file hosts only (redirects are followed by hand, each checked before it is
// requested: file-hosts.ts), and an HTML page where a file was expected is the platform's login
// page: the scope to read files is missing.
import type { Download, DownloadRequest } from "./file-ref.js";
import { type FileHosts, offPlatformReason } from "./file-hosts.js";
import { formatBytes } from "./file-names.js";

export interface UrlDownload extends DownloadRequest {
  readonly url: string;
  /** The only origins the download may request, its link and every redirect alike. */
  readonly hosts: FileHosts;
  /** e.g. `Bearer xoxb-…`: sent with each request, every one of which goes to `hosts`. */
  readonly authorization?: string;
  /** The file is HTML itself: an HTML answer is then the file, not a login page. */
  readonly expectsHtml?: boolean;
  /** The size the platform declared in its event. */
  readonly declaredSize?: number;
}

export const LOGIN_PAGE_DETAIL = "the platform answered with a login page: the files:read scope is missing";
const MAX_REDIRECTS = 5;
const HTML_START = /^\s*<(!doctype\s+html|html[\s>])/i;

const failed = (reason: Extract<Download, { kind: "failed" }>["reason"], detail: string): Download => ({ kind: "failed", reason, detail });

function tooBig(bytes: number, maxBytes: number, how: string): Download {
  return failed("too_big", `${how} ${formatBytes(bytes)}, more than the limit of ${formatBytes(maxBytes)} (FILE_MAX_BYTES)`);
}

/** Never rejects: every failure is a typed `failed` with a sentence a person can act on. */
export async function downloadUrl(request: UrlDownload): Promise<Download> {
  if (request.declaredSize !== undefined && request.declaredSize > request.maxBytes)
    return tooBig(request.declaredSize, request.maxBytes, "the file is");
  const signal = AbortSignal.any([request.signal, AbortSignal.timeout(request.timeoutMs)]);
  try {
    return await fetchFollowing(request, signal);
  } catch (error) {
    if (request.signal.aborted) return failed("failed_download", "the run's time ran out (or it was stopped) during the download");
    if (signal.aborted) return failed("failed_download", `no complete answer within ${request.timeoutMs} ms (FILE_DOWNLOAD_TIMEOUT_MS)`);
    return failed("failed_download", `the download failed (${causeOf(error)})`);
  }
}

async function fetchFollowing(request: UrlDownload, signal: AbortSignal): Promise<Download> {
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    return failed("failed_download", "the platform gave no usable link for the file");
  }
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const refused = offPlatformReason(url, request.hosts, hop === 0 ? "link" : "redirect");
    if (refused) return failed("off_platform_link", refused);
    const headers: Record<string, string> = request.authorization ? { authorization: request.authorization } : {};
    const response = await fetch(url, { headers, redirect: "manual", signal });
    const location = response.headers.get("location");
    if (response.status >= 300 && response.status < 400 && location) {
      await response.body?.cancel();
      url = new URL(location, url);
      continue;
    }
    return readResponse(response, request);
  }
  return failed("failed_download", `more than ${MAX_REDIRECTS} redirects`);
}

async function readResponse(response: Response, request: UrlDownload): Promise<Download> {
  const mime = response.headers.get("content-type")?.split(";")[0]?.trim().toLowerCase() || undefined;
  const refused = statusFailure(response.status);
  if (refused) {
    await response.body?.cancel();
    return refused;
  }
  if (mime === "text/html" && !request.expectsHtml) {
    await response.body?.cancel();
    return failed("missing_scope", LOGIN_PAGE_DETAIL);
  }
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  if (Number.isFinite(declared) && declared > request.maxBytes) {
    await response.body?.cancel();
    return tooBig(declared, request.maxBytes, "the server declared");
  }
  const body = await readBounded(response, request.maxBytes, Number.isFinite(declared) ? declared : undefined);
  if (body.kind === "too_big")
    return failed(
      "too_big",
      `the server sent more than the limit of ${formatBytes(request.maxBytes)} (FILE_MAX_BYTES): the download was cut off there`,
    );
  if (!request.expectsHtml && HTML_START.test(body.data.subarray(0, 256).toString("latin1")))
    return failed("missing_scope", LOGIN_PAGE_DETAIL);
  return mime ? { kind: "ok", data: body.data, mime } : { kind: "ok", data: body.data };
}

function statusFailure(status: number): Download | undefined {
  if (status >= 200 && status < 300) return undefined;
  if (status === 401) return failed("failed_download", "the platform refused the bot's credentials (HTTP 401)");
  if (status === 403 || status === 404 || status === 410)
    return failed("expired_link", `the link has expired or the file is gone (HTTP ${status})`);
  return failed("failed_download", `the platform answered HTTP ${status}`);
}

type Bounded = { readonly kind: "ok"; readonly data: Buffer } | { readonly kind: "too_big" };

/** The body, read chunk by chunk; stops (and cancels the rest) before holding more than `maxBytes`. */
async function readBounded(response: Response, maxBytes: number, declared: number | undefined): Promise<Bounded> {
  if (!response.body) return { kind: "ok", data: Buffer.alloc(0) };
  const reader = response.body.getReader();
  // One buffer of the declared size when there is one: no second copy at the end.
  let whole = declared !== undefined && declared > 0 ? Buffer.allocUnsafe(declared) : undefined;
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (total + value.byteLength > maxBytes) {
      await reader.cancel();
      return { kind: "too_big" };
    }
    if (whole && total + value.byteLength <= whole.length) whole.set(value, total);
    else {
      if (whole) chunks.push(whole.subarray(0, total));
      whole = undefined;
      chunks.push(value);
    }
    total += value.byteLength;
  }
  return { kind: "ok", data: whole ? whole.subarray(0, total) : Buffer.concat(chunks, total) };
}

function causeOf(error: unknown): string {
  for (let cause: unknown = error, depth = 0; cause instanceof Error && depth < 4; cause = cause.cause, depth += 1) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === "string") return code;
  }
  return error instanceof Error ? error.message : String(error);
}
