// The fake Discord gateway: a WebSocket on the fake server that speaks just enough of the
// protocol for discord.js (hello, identify → ready + guild creates, heartbeat ack, resume
// refused) and then forwards whatever dispatches a test sends.
import type { Server } from "node:http";
import { WebSocketServer, type WebSocket } from "ws";
import { GatewayDispatchEvents, GatewayOpcodes } from "discord.js";

export interface GatewayHooks {
  readonly token: string;
  readonly heartbeatIntervalMs: number;
  /** READY's `d` for a new session. */
  ready(sessionId: string): Record<string, unknown>;
  /** One GUILD_CREATE payload per guild, sent after READY. */
  guilds(): readonly Record<string, unknown>[];
}

export interface IdentifyRecord {
  readonly token: string;
  readonly intents: number;
}

interface Session {
  readonly socket: WebSocket;
  sequence: number;
  identified: boolean;
}

export class FakeGateway {
  readonly identifies: IdentifyRecord[] = [];
  heartbeats = 0;
  private readonly sessions = new Set<Session>();
  private readonly server: WebSocketServer;
  private sessionCounter = 0;

  constructor(
    httpServer: Server,
    private readonly hooks: GatewayHooks,
  ) {
    this.server = new WebSocketServer({ server: httpServer, path: "/gateway" });
    this.server.on("connection", (socket) => this.accept(socket));
  }

  /** Sessions that identified and are still open. */
  get connected(): number {
    return [...this.sessions].filter((session) => session.identified).length;
  }

  dispatch(type: string, data: unknown): void {
    for (const session of this.sessions) {
      if (session.identified) this.send(session, { op: GatewayOpcodes.Dispatch, t: type, s: ++session.sequence, d: data });
    }
  }

  async close(): Promise<void> {
    for (const session of this.sessions) session.socket.terminate();
    this.sessions.clear();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(socket: WebSocket): void {
    const session: Session = { socket, sequence: 0, identified: false };
    this.sessions.add(session);
    socket.on("close", () => this.sessions.delete(session));
    socket.on("message", (raw) => this.receive(session, raw.toString()));
    this.send(session, { op: GatewayOpcodes.Hello, d: { heartbeat_interval: this.hooks.heartbeatIntervalMs } });
  }

  private receive(session: Session, raw: string): void {
    const payload = JSON.parse(raw) as { op: number; d: unknown };
    switch (payload.op) {
      case GatewayOpcodes.Identify: {
        const identify = payload.d as IdentifyRecord;
        this.identifies.push({ token: identify.token, intents: identify.intents });
        if (identify.token !== this.hooks.token) {
          session.socket.close(4004, "Authentication failed.");
          return;
        }
        session.identified = true;
        this.sessionCounter += 1;
        this.send(session, {
          op: GatewayOpcodes.Dispatch,
          t: GatewayDispatchEvents.Ready,
          s: ++session.sequence,
          d: this.hooks.ready(`session-${this.sessionCounter}`),
        });
        for (const guild of this.hooks.guilds()) {
          this.send(session, { op: GatewayOpcodes.Dispatch, t: GatewayDispatchEvents.GuildCreate, s: ++session.sequence, d: guild });
        }
        return;
      }
      case GatewayOpcodes.Heartbeat:
        this.heartbeats += 1;
        this.send(session, { op: GatewayOpcodes.HeartbeatAck });
        return;
      case GatewayOpcodes.Resume:
        this.send(session, { op: GatewayOpcodes.InvalidSession, d: false });
        return;
      default:
        return;
    }
  }

  private send(session: Session, payload: Record<string, unknown>): void {
    if (session.socket.readyState === session.socket.OPEN) session.socket.send(JSON.stringify(payload));
  }
}
