// A file host on 127.0.0.1 that serves files the way the chat platforms do, for the downloader
// and intake tests: private files that refuse a missing or wrong token and answer a login page
// (HTML) to a token without the files:read scope (Slack), links that expire (Discord's CDN), a
// server that sends more than it declared, one that never answers, redirects. It records every
// request with its headers, so a test can check a token never reached another origin.
import { once } from "node:events";
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export const GOOD_TOKEN = "xoxb-good";
/** A bot token without the files:read scope: Slack answers it with its login page. */
export const NO_SCOPE_TOKEN = "xoxb-no-files-scope";
export const LOGIN_PAGE = "<!DOCTYPE html><html><head><title>Sign in | Slack</title></head><body>Sign in to your workspace</body></html>";

export type ServedFile =
  | { readonly kind: "file"; readonly body: Buffer; readonly type?: string; readonly private?: boolean; readonly expiresAt?: number }
  /** Sends `bytes` in 64 KB chunks without a Content-Length; `sent()` tells how many went out before the client hung up. */
  | { readonly kind: "stream"; readonly bytes: number; readonly type?: string }
  /** Declares this Content-Length, whatever it sends. */
  | { readonly kind: "declared"; readonly declared: number; readonly type?: string }
  | { readonly kind: "redirect"; readonly to: string; readonly status?: number; readonly private?: boolean }
  | { readonly kind: "hang" };

export interface RecordedFileRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
}

export interface FakeFileServer {
  /** The origin, e.g. http://127.0.0.1:PORT */
  readonly url: string;
  readonly requests: RecordedFileRequest[];
  /** Serves `file` at `path`; returns its full URL. */
  serve(path: string, file: ServedFile): string;
  /** Bytes a `stream` file had sent when the client stopped reading (or all of them). */
  sent(path: string): number;
  /** Requests that asked for `path`. */
  hits(path: string): number;
  close(): Promise<void>;
}

const CHUNK = 64 * 1024;

export async function startFakeFileServer(): Promise<FakeFileServer> {
  const files = new Map<string, ServedFile>();
  const sentBytes = new Map<string, number>();
  const requests: RecordedFileRequest[] = [];
  const hanging = new Set<ServerResponse>();

  const refused = (response: ServerResponse, status: number, text: string) => {
    response.writeHead(status, { "content-type": "text/plain" });
    response.end(text);
  };

  const server = createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://x").pathname;
    requests.push({ method: request.method ?? "GET", path, headers: request.headers });
    const file = files.get(path);
    if (!file) return refused(response, 404, "not found");
    const isPrivate = (file.kind === "file" || file.kind === "redirect") && file.private === true;
    if (isPrivate) {
      const auth = request.headers.authorization;
      if (auth === `Bearer ${NO_SCOPE_TOKEN}`) {
        response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
        return response.end(LOGIN_PAGE);
      }
      if (auth !== `Bearer ${GOOD_TOKEN}`) return refused(response, 401, "not_authed");
    }
    switch (file.kind) {
      case "file":
        if (file.expiresAt !== undefined && Date.now() >= file.expiresAt)
          return refused(response, 404, "This content is no longer available.");
        response.writeHead(200, { "content-type": file.type ?? "application/octet-stream", "content-length": String(file.body.length) });
        return response.end(file.body);
      case "redirect":
        response.writeHead(file.status ?? 302, { location: file.to });
        return response.end();
      case "hang":
        hanging.add(response);
        response.on("close", () => hanging.delete(response));
        return;
      case "declared": {
        response.writeHead(200, { "content-type": file.type ?? "text/plain", "content-length": String(file.declared) });
        return response.end(Buffer.alloc(Math.min(file.declared, 1024), 0x61));
      }
      case "stream": {
        response.writeHead(200, { "content-type": file.type ?? "text/plain" });
        const chunk = Buffer.alloc(CHUNK, 0x61);
        let sent = 0;
        const pump = () => {
          while (sent < file.bytes && !response.destroyed) {
            const size = Math.min(CHUNK, file.bytes - sent);
            sent += size;
            sentBytes.set(path, sent);
            if (!response.write(size === CHUNK ? chunk : chunk.subarray(0, size))) return void response.once("drain", pump);
          }
          if (!response.destroyed) response.end();
        };
        response.on("close", () => sentBytes.set(path, sent));
        return pump();
      }
    }
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    requests,
    serve(path, file) {
      files.set(path, file);
      return `${url}${path}`;
    },
    sent: (path) => sentBytes.get(path) ?? 0,
    hits: (path) => requests.filter((request) => request.path === path).length,
    async close() {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
