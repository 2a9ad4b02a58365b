// The fake Slack's Socket Mode endpoint (/socket on the fake's HTTP server): hello on connect,
// envelopes sent to every client (held for the next one when none is connected, as Slack holds
// events), acks recorded, and a way to go quiet so a client's goodbye is never answered.
import { EventEmitter, once } from "node:events";
import type { Server } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer, type WebSocket } from "ws";

export interface SocketAck {
  readonly envelopeId: string;
  readonly payload: unknown;
}

export interface SocketEndpoint {
  readonly acks: readonly SocketAck[];
  /** Resolves once a client finished the handshake. */
  waitForSocket(timeoutMs?: number): Promise<void>;
  /** Stops reading from connected clients, so a close frame is never answered (a peer gone quiet). */
  holdGoodbyes(): void;
  /** Resolves once no client is connected. */
  waitForSocketClosed(timeoutMs?: number): Promise<void>;
  /** Sent to every connected client; with none connected, held for the next one. */
  sendEnvelope(type: "events_api" | "interactive", payload: unknown, options?: { retryAttempt?: number; retryReason?: string }): string;
  waitForAck(envelopeId: string, timeoutMs?: number): Promise<SocketAck>;
  close(): void;
}

export function withDeadline<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`fake Slack: timed out after ${timeoutMs} ms waiting for ${what}`)), timeoutMs);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

function parsed(data: unknown): { envelope_id?: unknown; payload?: unknown } | undefined {
  try {
    return JSON.parse(String(data)) as { envelope_id?: unknown; payload?: unknown };
  } catch {
    return undefined;
  }
}

export function attachSocketEndpoint(server: Server, appId: string): SocketEndpoint {
  const acks: SocketAck[] = [];
  const sockets = new Set<WebSocket>();
  const rawSockets = new Set<Duplex>();
  const heldFrames: string[] = [];
  const events = new EventEmitter();
  events.setMaxListeners(0);
  let envelopeCounter = 0;
  const wss = new WebSocketServer({ noServer: true });

  server.on("upgrade", (request, socket, head) => {
    if (request.url !== "/socket") return socket.destroy();
    rawSockets.add(socket);
    socket.on("close", () => rawSockets.delete(socket));
    wss.handleUpgrade(request, socket, head, (ws) => {
      sockets.add(ws);
      ws.on("close", () => {
        sockets.delete(ws);
        if (sockets.size === 0) events.emit("socket_closed");
      });
      ws.on("message", (data) => {
        const frame = parsed(data);
        if (typeof frame?.envelope_id !== "string") return;
        const ack = { envelopeId: frame.envelope_id, payload: frame.payload };
        acks.push(ack);
        events.emit("ack", ack);
      });
      ws.send(JSON.stringify({ type: "hello", num_connections: 1, debug_info: { host: "fake" }, connection_info: { app_id: appId } }));
      for (const frame of heldFrames.splice(0)) ws.send(frame);
      events.emit("socket");
    });
  });

  return {
    acks,
    waitForSocket(timeoutMs = 10_000) {
      if (sockets.size > 0) return Promise.resolve();
      return withDeadline(
        once(events, "socket").then(() => undefined),
        timeoutMs,
        "a Socket Mode connection",
      );
    },
    holdGoodbyes() {
      for (const socket of rawSockets) socket.pause();
    },
    waitForSocketClosed(timeoutMs = 10_000) {
      if (sockets.size === 0) return Promise.resolve();
      return withDeadline(
        once(events, "socket_closed").then(() => undefined),
        timeoutMs,
        "the Socket Mode client to disconnect",
      );
    },
    sendEnvelope(type, payload, options = {}) {
      const envelopeId = `env-${++envelopeCounter}`;
      const frame = JSON.stringify({
        envelope_id: envelopeId,
        type,
        payload,
        accepts_response_payload: false,
        ...(options.retryAttempt !== undefined
          ? { retry_attempt: options.retryAttempt, retry_reason: options.retryReason ?? "timeout" }
          : {}),
      });
      if (sockets.size === 0) heldFrames.push(frame);
      for (const socket of sockets) socket.send(frame);
      return envelopeId;
    },
    waitForAck(envelopeId, timeoutMs = 10_000) {
      const existing = acks.find((ack) => ack.envelopeId === envelopeId);
      if (existing) return Promise.resolve(existing);
      let listener: (ack: SocketAck) => void = () => {};
      const found = new Promise<SocketAck>((resolve) => {
        listener = (ack) => {
          if (ack.envelopeId === envelopeId) resolve(ack);
        };
        events.on("ack", listener);
      });
      return withDeadline(found, timeoutMs, `the ack of ${envelopeId}`).finally(() => events.off("ack", listener));
    },
    close() {
      for (const socket of sockets) socket.terminate();
      for (const socket of rawSockets) socket.destroy();
      wss.close();
    },
  };
}
