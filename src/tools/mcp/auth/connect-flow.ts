// A person connecting a `user` server from the chat, on the bot's side: the Connect link (the
// bot's own address with a signed state), its opening (the SDK discovers the server's
// authorization server, registers the bot if it must, and builds the authorization URL with PKCE
// and the resource; the person is sent there), and the callback (the state checked and used once,
// the code exchanged by the SDK, the tokens sealed, the waiting run resumed once).
import { UnauthorizedError, auth } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Logger } from "../../../logger.js";
import type { ConnectGrant, ConnectState, ConnectStates } from "./connect-state.js";

export type { ConnectGrant } from "./connect-state.js";
import type { PersonConnections, PersonServer } from "./person-connections.js";
import { CLIENT_INFO } from "../connect.js";
import { PersonAuthProvider } from "./person-auth-provider.js";

export const CONNECT_PATH = "/oauth/connect";
export const CALLBACK_PATH = "/oauth/callback";
export const CLIENT_METADATA_PATH = "/oauth/client-metadata.json";

/** What the browser gets: a redirect to the authorization server, or a short page. */
export type FlowReply =
  | { readonly kind: "redirect"; readonly url: string }
  | { readonly kind: "page"; readonly status: number; readonly text: string };

/** What the runs say about the paused run a state names. */
export type GrantCheck = "ok" | "other_person" | "gone";

export interface ConnectFlowDeps {
  readonly connections: PersonConnections;
  readonly states: ConnectStates;
  /** The configured `user` server of that name. */
  server(name: string): PersonServer | undefined;
  /** Is the run still waiting for this person to connect this server? Asked before the state is used. */
  check(grant: ConnectGrant): Promise<GrantCheck>;
  /** The person connected: the run goes on (at most once: the runs claim it). Never rejects. */
  connected(grant: ConnectGrant): Promise<void>;
  readonly logger: Logger;
  readonly connectTimeoutMs?: number;
}

export interface ConnectFlow {
  link(grant: ConnectGrant): Promise<string>;
  open(stateText: string | null): Promise<FlowReply>;
  callback(query: URLSearchParams): Promise<FlowReply>;
}

const page = (status: number, text: string): FlowReply => ({ kind: "page", status, text });
const INVALID = page(400, "This Connect link is not valid. Nothing was changed; ask the bot again for a new one.");
const EXPIRED = page(410, "This Connect link expired (links last 10 minutes). Nothing was changed; ask the bot again for a new one.");
const USED = page(409, "This Connect link was used already. Nothing was changed; a new request brings a new link.");
const OTHER = page(403, "This Connect link is for another person's request. Nothing was changed.");
const GONE = page(410, "The request this Connect link was for is not waiting any more. Nothing was changed; ask the bot again.");

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

export function createConnectFlow(deps: ConnectFlowDeps): ConnectFlow {
  const { connections, states, logger } = deps;
  const base = new URL(connections.address.redirectUrl);

  const linkProvider = (state: ConnectState, server: PersonServer, text: string) =>
    new PersonAuthProvider({
      server: server.name,
      auth: server.auth,
      owner: state.owner,
      store: connections.store,
      address: connections.address,
      mode: { kind: "link", nonce: state.nonce, state: text },
    });

  /** A state that can still be used, with its server and run; or the page that says why not. */
  async function usable(text: string | null): Promise<{ state: ConnectState; server: PersonServer } | FlowReply> {
    if (!text) return INVALID;
    const checked = await states.check(text);
    if (checked.kind === "invalid") return INVALID;
    if (checked.kind === "used") return USED;
    if (checked.kind === "expired") return EXPIRED;
    const server = deps.server(checked.state.server);
    if (!server) return GONE;
    const run = await deps.check(checked.state);
    if (run === "other_person") return OTHER;
    if (run === "gone") return GONE;
    return { state: checked.state, server };
  }

  return {
    async link(grant) {
      const { text } = await states.issue(grant);
      const url = new URL(CONNECT_PATH, base);
      url.searchParams.set("state", text);
      return url.toString();
    },

    async open(text) {
      const found = await usable(text);
      if ("kind" in found) return found;
      const provider = linkProvider(found.state, found.server, text!);
      const wanted = await connections.store.wantedScope(found.state.owner, found.server.name);
      try {
        // A step-up asks for the scope the server named; a first sign-in lets the server's challenge say it.
        if (wanted) await auth(provider, { serverUrl: found.server.url, scope: wanted });
        else await authorizationUrl(provider, found.server, deps.connectTimeoutMs ?? 15_000);
      } catch (error) {
        logger.warn({ mcpServer: found.server.name, err: errorText(error) }, "could not start a connection");
        return page(502, `Could not reach ${found.server.name}'s sign-in (${errorText(error)}). Nothing was changed; try the link again.`);
      }
      if (!provider.authorizationUrl) return page(502, `${found.server.name} did not ask for a sign-in. Nothing was changed.`);
      return { kind: "redirect", url: provider.authorizationUrl.toString() };
    },

    async callback(query) {
      const text = query.get("state");
      const found = await usable(text);
      if ("kind" in found) return found;
      const { state, server } = found;
      // Used once, whatever happens next: a replayed callback (or a second process) stops here.
      if (!(await states.claim(state))) return USED;
      const refused = query.get("error");
      if (refused)
        return page(
          400,
          `${server.name} did not connect (${refused.slice(0, 100)}). Nothing was changed; ask the bot again to try once more.`,
        );
      const code = query.get("code");
      if (!code) return INVALID;
      try {
        const result = await auth(linkProvider(state, server, text!), { serverUrl: server.url, authorizationCode: code });
        if (result !== "AUTHORIZED") throw new Error("the authorization server did not give a token");
      } catch (error) {
        logger.warn({ mcpServer: server.name, err: errorText(error) }, "could not finish a connection");
        return page(502, `Could not connect to ${server.name} (${errorText(error)}). Ask the bot again for a new link.`);
      }
      await connections.store.saveWantedScope(state.owner, server.name, undefined);
      logger.info({ mcpServer: server.name, surface: state.owner.surface }, "a person connected an MCP server");
      await deps.connected(state);
      return page(200, `Connected to ${server.name} — you can close this tab.`);
    },
  };
}

/** The SDK's own way in: an initialize without a token meets the server's 401, and its challenge leads the SDK to the login URL. */
async function authorizationUrl(provider: PersonAuthProvider, server: PersonServer, timeoutMs: number): Promise<void> {
  const client = new Client(CLIENT_INFO, { capabilities: {} });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { authProvider: provider }), { timeout: timeoutMs });
  } catch (error) {
    if (!(error instanceof UnauthorizedError)) throw error;
  } finally {
    await client.close().catch(() => {});
  }
  // A server that took the initialize without a token (it asks for sign-in later, or only for some calls): asked directly.
  if (!provider.authorizationUrl) await auth(provider, { serverUrl: server.url });
}
