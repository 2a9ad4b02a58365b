// The explorer's plain HTTP: what a handler answers (a Reply: status, type, body, headers), the
// headers every answer carries (a strict Content-Security-Policy, no caching, no framing), and
// reading a form body within a size limit. Requests are untrusted; nothing here throws at them.
import type { IncomingMessage, ServerResponse } from "node:http";
import { BodyError } from "../../errors.js";

export interface Reply {
  readonly status: number;
  readonly type: "html" | "json" | "csv" | "css" | "js" | "svg" | "text";
  readonly body: string;
  readonly headers?: Readonly<Record<string, string>>;
}

const TYPES: Record<Reply["type"], string> = {
  html: "text/html; charset=utf-8",
  json: "application/json; charset=utf-8",
  csv: "text/csv; charset=utf-8",
  css: "text/css; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  svg: "image/svg+xml",
  text: "text/plain; charset=utf-8",
};

/** Nothing from outside the process, no inline script or style, no framing, forms only back here. */
export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

const SECURITY_HEADERS = {
  "Content-Security-Policy": CONTENT_SECURITY_POLICY,
  "X-Content-Type-Options": "nosniff",
  "X-Frame-Options": "DENY",
  "Referrer-Policy": "no-referrer",
  "Cache-Control": "no-store",
};

export const json = (status: number, body: unknown, headers?: Record<string, string>): Reply => ({
  status,
  type: "json",
  body: JSON.stringify(body),
  ...(headers ? { headers } : {}),
});

export const text = (status: number, body: string, headers?: Record<string, string>): Reply => ({
  status,
  type: "text",
  body,
  ...(headers ? { headers } : {}),
});

export const redirect = (location: string, headers: Record<string, string> = {}): Reply => ({
  status: 303,
  type: "text",
  body: `See ${location}`,
  headers: { Location: location, ...headers },
});

/** Writes the reply; a response already gone (the client left) is left alone. */
export function send(response: ServerResponse, reply: Reply, head: boolean): void {
  if (response.headersSent || response.destroyed) return;
  const body = Buffer.from(reply.body, "utf8");
  response.writeHead(reply.status, {
    ...SECURITY_HEADERS,
    "Content-Type": TYPES[reply.type],
    "Content-Length": String(body.length),
    ...reply.headers,
  });
  response.end(head ? undefined : body);
}

/** A urlencoded form of at most `limit` bytes; BodyError for anything else. */
export async function readForm(request: IncomingMessage, limit: number): Promise<URLSearchParams> {
  const type = (request.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded") {
    request.resume();
    throw new BodyError(415, "expects a form (application/x-www-form-urlencoded)");
  }
  const declared = Number(request.headers["content-length"] ?? "0");
  if (Number.isFinite(declared) && declared > limit) {
    request.resume();
    throw new BodyError(413, `the body may be at most ${limit} bytes`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      request.resume();
      throw new BodyError(413, `the body may be at most ${limit} bytes`);
    }
    chunks.push(chunk as Buffer);
  }
  const body = Buffer.concat(chunks).toString("utf8");
  if (body.includes("\uFFFD")) throw new BodyError(400, "the body is not valid UTF-8");
  return new URLSearchParams(body);
}
