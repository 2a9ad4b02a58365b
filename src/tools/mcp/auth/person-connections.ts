// Each person's connections to `user` servers: whether one is ready for a call (refreshed first
// when its token is about to end, by one process at a time across the deployment, the others
// taking its result), the provider a session signs in with, the person's list, and disconnecting
// (revoked at the server when it offers revocation).
import { setTimeout as sleep } from "node:timers/promises";
import { auth, selectClientAuthMethod } from "@modelcontextprotocol/sdk/client/auth.js";
import { z } from "zod";
import type { Logger } from "../../../logger.js";
import type { McpAuth } from "./auth-config.js";
import type { ConnectionOwner, ConnectionStore, StoredConnection } from "./connection-store.js";
import { type ClientAddress, PersonAuthProvider } from "./person-auth-provider.js";

/** A user server as the connections know it. */
export interface PersonServer {
  readonly name: string;
  readonly url: string;
  readonly auth: McpAuth | undefined;
}

export type Readiness = "ready" | "needs_connection";

export interface ConnectionSummary {
  readonly server: string;
  readonly connectedAt: number;
}

export interface PersonConnections {
  readonly store: ConnectionStore;
  readonly address: ClientAddress;
  /** Refreshes a token that is about to end (once across processes); `needs_connection` when there is none or it can't be renewed. */
  readiness(owner: ConnectionOwner, server: PersonServer): Promise<Readiness>;
  /** The SDK provider a person's session signs in with: it never starts a login itself. */
  sessionProvider(owner: ConnectionOwner, server: PersonServer): PersonAuthProvider;
  list(owner: ConnectionOwner): Promise<ConnectionSummary[]>;
  /** Forgets the tokens, after asking the server to revoke them when it offers that; false when there was no connection. */
  disconnect(owner: ConnectionOwner, server: PersonServer): Promise<boolean>;
}

/** A token this close to its end is renewed before a call, so the call does not meet a 401. */
const RENEW_BEFORE_MS = 30_000;
/** Longer than a refresh takes; a process that died holding the lock holds it no longer than this. */
const DEFAULT_REFRESH_LOCK_MS = 15_000;
const LOCK_POLL_MS = 100;

/** The parts of the authorization server's metadata a revocation needs (RFC 8414 names them; the SDK's types leave them out). */
const RevocationMetadata = z.looseObject({
  revocation_endpoint: z.url().optional(),
  revocation_endpoint_auth_methods_supported: z.array(z.string()).optional(),
  token_endpoint_auth_methods_supported: z.array(z.string()).optional(),
});

const ending = (held: StoredConnection, now: number) => held.expiresAt !== undefined && held.expiresAt - RENEW_BEFORE_MS <= now;

export function createPersonConnections(deps: {
  readonly store: ConnectionStore;
  readonly address: ClientAddress;
  readonly logger: Logger;
  readonly clock: () => number;
  /** How long a refresh may hold the lock (default 15 s). */
  readonly refreshLockMs?: number;
}): PersonConnections {
  const { store, address, logger, clock } = deps;
  const lockMs = deps.refreshLockMs ?? DEFAULT_REFRESH_LOCK_MS;
  const sessionProvider = (owner: ConnectionOwner, server: PersonServer) =>
    new PersonAuthProvider({ server: server.name, auth: server.auth, owner, store, address, mode: { kind: "session" } });

  /** Under the lock: the token read again (another process may have renewed it), then renewed by the SDK if still needed. */
  async function renew(owner: ConnectionOwner, server: PersonServer): Promise<Readiness> {
    const held = await store.connection(owner, server.name);
    if (!held) return "needs_connection";
    if (!ending(held, clock())) return "ready";
    if (!held.tokens.refresh_token) {
      await store.forget(owner, server.name);
      return "needs_connection";
    }
    try {
      // The SDK refreshes with the stored refresh token; one it can't use sends it to a new login, which this provider only notes.
      const result = await auth(sessionProvider(owner, server), { serverUrl: server.url });
      if (result === "AUTHORIZED") return "ready";
    } catch (error) {
      logger.warn({ mcpServer: server.name, err: error instanceof Error ? error.message : String(error) }, "could not renew a connection");
    }
    await store.forget(owner, server.name);
    return "needs_connection";
  }

  return {
    store,
    address,
    sessionProvider,

    async readiness(owner, server) {
      const held = await store.connection(owner, server.name);
      if (!held) return "needs_connection";
      if (!ending(held, clock())) return "ready";
      for (let waited = 0; waited < lockMs * 2; waited += LOCK_POLL_MS) {
        if (await store.lockRefresh(owner, server.name, lockMs)) {
          try {
            return await renew(owner, server);
          } finally {
            await store.unlockRefresh(owner, server.name);
          }
        }
        // Another process renews it: its result is the one used.
        await sleep(LOCK_POLL_MS);
        const now = await store.connection(owner, server.name);
        if (!now) return "needs_connection";
        if (!ending(now, clock())) return "ready";
      }
      return "needs_connection";
    },

    async list(owner) {
      const found: ConnectionSummary[] = [];
      for (const server of await store.servers(owner)) {
        const held = await store.connection(owner, server);
        if (held) found.push({ server, connectedAt: held.connectedAt });
      }
      return found;
    },

    async disconnect(owner, server) {
      const held = await store.connection(owner, server.name);
      if (!held) {
        await store.forget(owner, server.name);
        return false;
      }
      await revoke(server, held, store, sessionProvider(owner, server)).catch((error: unknown) =>
        logger.warn({ mcpServer: server.name, err: error instanceof Error ? error.message : String(error) }, "could not revoke a token"),
      );
      await store.forget(owner, server.name);
      return true;
    },
  };
}

/**
 * RFC 7009 at the authorization server's revocation endpoint, when its metadata names one: the
 * refresh token (which ends the access tokens made from it), else the access token. Written here:
 * the SDK has no revocation client.
 */
async function revoke(server: PersonServer, held: StoredConnection, store: ConnectionStore, provider: PersonAuthProvider): Promise<void> {
  const metadata = RevocationMetadata.safeParse((await store.discovery(server.name))?.authorizationServerMetadata);
  const client = await provider.clientInformation();
  if (!metadata.success || !metadata.data.revocation_endpoint || !client) return;
  const { revocation_endpoint: endpoint, revocation_endpoint_auth_methods_supported: revocationMethods } = metadata.data;
  const refresh = held.tokens.refresh_token;
  const body = new URLSearchParams({
    token: refresh ?? held.tokens.access_token,
    token_type_hint: refresh ? "refresh_token" : "access_token",
  });
  const headers = new Headers({ "content-type": "application/x-www-form-urlencoded", accept: "application/json" });
  const secret = "client_secret" in client ? client.client_secret : undefined;
  const method = selectClientAuthMethod(client, revocationMethods ?? metadata.data.token_endpoint_auth_methods_supported ?? []);
  if (method === "client_secret_basic" && secret)
    headers.set(
      "authorization",
      `Basic ${Buffer.from(`${encodeURIComponent(client.client_id)}:${encodeURIComponent(secret)}`).toString("base64")}`,
    );
  else {
    body.set("client_id", client.client_id);
    if (method === "client_secret_post" && secret) body.set("client_secret", secret);
  }
  const response = await fetch(endpoint, { method: "POST", headers, body, signal: AbortSignal.timeout(10_000) });
  await response.body?.cancel();
  if (!response.ok) throw new Error(`the revocation endpoint answered HTTP ${response.status}`);
}
