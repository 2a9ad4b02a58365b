// HTTP at the byte level, for what fetch refuses to send: unknown methods, absolute-form and
// malformed targets, bodies shorter than their Content-Length, headers that never end. Each
// request opens its own connection and settles with the status line, or how it ended without one.
import { connect, type Socket } from "node:net";

export type RawAnswer =
  | { readonly kind: "status"; readonly status: number }
  /** The server closed the connection (or reset it) without a status line. */
  | { readonly kind: "closed" }
  /** Nothing came back within the wait: the server is still waiting for the rest of the request. */
  | { readonly kind: "silent" };

export interface RawRequest {
  /** What is written, in order; a function part is awaited between writes (a slow client's pause). */
  readonly parts: ReadonlyArray<string | Buffer | (() => Promise<void>)>;
  /** Half-closes the connection after the last part (a client that gave up mid-body). */
  readonly end?: boolean;
  /** How long to wait for a status line after the last part; default 5 s. */
  readonly waitMs?: number;
}

/** Never rejects: a refused or reset connection is an answer too. */
export function sendRaw(port: number, request: RawRequest): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    let settled = false;
    let received = "";
    let timer: NodeJS.Timeout | undefined;
    const settle = (answer: RawAnswer): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    socket.on("data", (chunk: Buffer) => {
      received += chunk.toString("latin1");
      const line = /^HTTP\/1\.[01] (\d{3})/.exec(received);
      if (line) settle({ kind: "status", status: Number(line[1]) });
    });
    socket.on("error", () => settle({ kind: "closed" }));
    socket.on("close", () => settle({ kind: "closed" }));
    socket.once("connect", () => {
      void write(socket, request).then(() => {
        if (request.end) socket.end();
        timer = setTimeout(() => settle({ kind: "silent" }), request.waitMs ?? 5_000);
      });
    });
  });
}

async function write(socket: Socket, request: RawRequest): Promise<void> {
  for (const part of request.parts) {
    if (socket.destroyed) return;
    if (typeof part === "function") await part();
    else if (!socket.write(part)) await new Promise<void>((resolve) => socket.once("drain", resolve).once("close", resolve));
  }
}

/** A request head: request line, headers (Host added), and the blank line unless `open`. */
export function head(method: string, target: string, headers: Record<string, string | number> = {}, open = false): string {
  const lines = [`${method} ${target} HTTP/1.1`, "Host: 127.0.0.1", ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`)];
  return `${lines.join("\r\n")}\r\n${open ? "" : "\r\n"}`;
}

export const pause = (ms: number) => () => new Promise<void>((resolve) => setTimeout(resolve, ms));
