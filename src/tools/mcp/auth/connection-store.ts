// What the bot keeps of OAuth in the shared store, every secret sealed (sealed-box.ts): each
// person's tokens per server (keyed by surface, workspace, person and server), each server's client
// registration and discovered metadata, the PKCE verifier of a Connect link while it is open, and
// the lock that lets one process refresh a person's token while the others wait for its result.
import { z } from "zod";
import type { OAuthClientInformationMixed, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import type { KeyValueStore } from "../../../memory/types.js";
import type { SealedBox } from "./sealed-box.js";

/** Whose connection: a person on a surface, in a workspace (Slack team, Discord guild; none in the console). */
export interface ConnectionOwner {
  readonly surface: string;
  readonly workspace?: string;
  readonly person: string;
}

export interface StoredConnection {
  /** As the SDK handed them over (its `issuer` stamp included): given back unchanged. */
  readonly tokens: OAuthTokens & { readonly issuer?: string };
  readonly connectedAt: number;
  /** When the access token stops working, if the server said (expires_in). */
  readonly expiresAt?: number;
}

/** One person's connection to one server as the explorer lists it: who, where, which server, since when. Never a token. */
export interface ConnectionListing {
  readonly owner: ConnectionOwner;
  readonly server: string;
  readonly connectedAt: number;
}

export interface ConnectionStore {
  connection(owner: ConnectionOwner, server: string): Promise<StoredConnection | undefined>;
  /** Keeps the refresh token already held when the server sends none (it did not rotate it). */
  saveTokens(owner: ConnectionOwner, server: string, tokens: OAuthTokens): Promise<void>;
  forget(owner: ConnectionOwner, server: string): Promise<void>;
  /** The servers this person has connected, by name. */
  servers(owner: ConnectionOwner): Promise<string[]>;
  /** Every person's connections, for the explorer. */
  everyone(): Promise<ConnectionListing[]>;
  /** Forgets every connection of every person of the workspace (it removed the bot); returns how many went. */
  forgetWorkspace(surface: string, workspace: string): Promise<number>;
  clientInformation(server: string): Promise<OAuthClientInformationMixed | undefined>;
  saveClientInformation(server: string, information: OAuthClientInformationMixed): Promise<void>;
  forgetClient(server: string): Promise<void>;
  discovery(server: string): Promise<OAuthDiscoveryState | undefined>;
  saveDiscovery(server: string, state: OAuthDiscoveryState): Promise<void>;
  forgetDiscovery(server: string): Promise<void>;
  verifier(nonce: string): Promise<string | undefined>;
  saveVerifier(nonce: string, verifier: string): Promise<void>;
  /** The scopes a server asked this person for beyond their connection's (step-up); the next Connect link asks for them. */
  wantedScope(owner: ConnectionOwner, server: string): Promise<string | undefined>;
  saveWantedScope(owner: ConnectionOwner, server: string, scope: string | undefined): Promise<void>;
  /** True when this call took the refresh lock of (owner, server); it lapses by itself after `ttlMs`. */
  lockRefresh(owner: ConnectionOwner, server: string, ttlMs: number): Promise<boolean>;
  unlockRefresh(owner: ConnectionOwner, server: string): Promise<void>;
}

/** A Connect link lives 10 minutes; its verifier a little longer, so a callback at the last second still finds it. */
const VERIFIER_TTL_MS = 11 * 60_000;

const part = (value: string) => encodeURIComponent(value);
export const ownerKey = (owner: ConnectionOwner) => `${part(owner.surface)}:${part(owner.workspace ?? "-")}:${part(owner.person)}`;
const connectionKey = (owner: ConnectionOwner, server: string) => `mcp:oauth:connection:${ownerKey(owner)}:${part(server)}`;
const listKey = (owner: ConnectionOwner) => `mcp:oauth:servers:${ownerKey(owner)}`;
const clientKey = (server: string) => `mcp:oauth:client:${part(server)}`;
const discoveryKey = (server: string) => `mcp:oauth:discovery:${part(server)}`;
const verifierKey = (nonce: string) => `mcp:oauth:verifier:${part(nonce)}`;
const scopeKey = (owner: ConnectionOwner, server: string) => `mcp:oauth:wanted-scope:${ownerKey(owner)}:${part(server)}`;
const lockKey = (owner: ConnectionOwner, server: string) => `mcp:oauth:refreshing:${ownerKey(owner)}:${part(server)}`;

/** Everyone who ever connected a server (a set, so processes sharing Redis keep each other's). */
const PEOPLE_KEY = "mcp:oauth:people";
const OwnerSchema = z.object({ surface: z.string(), workspace: z.string().optional(), person: z.string() });
const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};
const TokensSchema = z.looseObject({ access_token: z.string(), token_type: z.string(), refresh_token: z.string().optional() });
const ConnectionSchema = z.object({ tokens: TokensSchema, connectedAt: z.number(), expiresAt: z.number().optional() });
const ClientSchema = z.looseObject({ client_id: z.string() });
const DiscoverySchema = z.looseObject({ authorizationServerUrl: z.string() });

export function createConnectionStore(store: KeyValueStore, box: SealedBox, clock: () => number): ConnectionStore {
  const read = async <T>(key: string, schema: z.ZodType<T>): Promise<T | undefined> => {
    const parsed = schema.safeParse(await box.open(await store.get(key), key));
    return parsed.success ? parsed.data : undefined;
  };
  const write = async (key: string, value: unknown, ttlMs?: number) => store.set(key, await box.seal(value, key), ttlMs);

  const connection = (owner: ConnectionOwner, server: string) =>
    read(connectionKey(owner, server), ConnectionSchema) as Promise<StoredConnection | undefined>;

  return {
    connection,
    async saveTokens(owner, server, tokens) {
      const before = await connection(owner, server);
      const kept = tokens.refresh_token === undefined && before?.tokens.refresh_token ? { refresh_token: before.tokens.refresh_token } : {};
      const now = clock();
      const record: StoredConnection = {
        tokens: { ...tokens, ...kept },
        connectedAt: before?.connectedAt ?? now,
        ...(tokens.expires_in === undefined ? {} : { expiresAt: now + tokens.expires_in * 1000 }),
      };
      await write(connectionKey(owner, server), record);
      await store.addToSet(listKey(owner), server);
      await store.addToSet(PEOPLE_KEY, JSON.stringify(owner));
    },
    async forget(owner, server) {
      await store.delete(connectionKey(owner, server));
      await store.removeFromSet(listKey(owner), server);
    },
    async servers(owner) {
      return (await store.setMembers(listKey(owner))).sort();
    },
    async everyone() {
      const found: ConnectionListing[] = [];
      for (const member of await store.setMembers(PEOPLE_KEY)) {
        const owner = OwnerSchema.safeParse(parseJson(member));
        if (!owner.success) continue;
        for (const server of (await store.setMembers(listKey(owner.data))).sort()) {
          const held = await connection(owner.data, server);
          if (held) found.push({ owner: owner.data, server, connectedAt: held.connectedAt });
        }
      }
      return found;
    },
    async forgetWorkspace(surface, workspace) {
      let forgotten = 0;
      for (const member of await store.setMembers(PEOPLE_KEY)) {
        const owner = OwnerSchema.safeParse(parseJson(member));
        if (!owner.success || owner.data.surface !== surface || owner.data.workspace !== workspace) continue;
        for (const server of await store.setMembers(listKey(owner.data))) {
          await store.delete(connectionKey(owner.data, server));
          await store.delete(scopeKey(owner.data, server));
          await store.removeFromSet(listKey(owner.data), server);
          forgotten++;
        }
        await store.removeFromSet(PEOPLE_KEY, member);
      }
      return forgotten;
    },
    clientInformation: (server) => read(clientKey(server), ClientSchema) as Promise<OAuthClientInformationMixed | undefined>,
    saveClientInformation: (server, information) => write(clientKey(server), information),
    forgetClient: async (server) => void (await store.delete(clientKey(server))),
    discovery: (server) => read(discoveryKey(server), DiscoverySchema) as Promise<OAuthDiscoveryState | undefined>,
    saveDiscovery: (server, state) => write(discoveryKey(server), state),
    forgetDiscovery: async (server) => void (await store.delete(discoveryKey(server))),
    verifier: (nonce) => read(verifierKey(nonce), z.string()),
    saveVerifier: (nonce, verifier) => write(verifierKey(nonce), verifier, VERIFIER_TTL_MS),
    wantedScope: async (owner, server) => {
      const found = await store.get(scopeKey(owner, server));
      return typeof found === "string" ? found : undefined;
    },
    saveWantedScope: async (owner, server, scope) =>
      scope === undefined ? void (await store.delete(scopeKey(owner, server))) : store.set(scopeKey(owner, server), scope, VERIFIER_TTL_MS),
    lockRefresh: (owner, server, ttlMs) => store.setIfAbsent(lockKey(owner, server), clock(), ttlMs),
    unlockRefresh: async (owner, server) => void (await store.delete(lockKey(owner, server))),
  };
}
