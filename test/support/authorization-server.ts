// A real OAuth 2.1 authorization server on 127.0.0.1 (oidc-provider), and an MCP server it
// protects (the SDK's server, test/support/mcp-http-server.ts). The sign-in pages answer by
// themselves as the person the test names, so a plain GET that follows redirects is a browser
// that signs in and consents. Dynamic registration, PKCE, resource indicators, refresh-token
// rotation and revocation are oidc-provider's own; every token request is recorded.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
// @ts-expect-error oidc-provider ships no types.
import Provider from "oidc-provider";
import { startMcpHttpServer, type TestMcpHttpServer, type ToolSetup } from "./mcp-http-server.js";

export interface TokenRequest {
  readonly grantType: string;
  readonly at: number;
}

export interface AuthorizationServer {
  readonly issuer: string;
  /** Every POST to the token endpoint, in order. */
  readonly tokenRequests: TokenRequest[];
  /** Every POST to the revocation endpoint. */
  readonly revocations: string[];
  /** Every access and refresh token the server issued (their values), to look for where they must never be. */
  readonly issued: string[];
  /** Who signs in next (the "browser"'s person). */
  signInAs(accountId: string): void;
  /** The access token's account, or undefined when it is not (or no longer) valid for `resource`. */
  accountOf(token: string, resource: string): Promise<string | undefined>;
  /** Whether a refresh token is still known to the server (revoked or rotated ones are not). */
  refreshTokenValid(token: string): Promise<boolean>;
  /** Ends an access token now, as its expiry would: the protected server refuses it from then on. */
  endAccessToken(token: string): Promise<void>;
  close(): Promise<void>;
}

export interface ProtectedMcpServer {
  readonly mcp: TestMcpHttpServer;
  readonly url: string;
  readonly as: AuthorizationServer;
  close(): Promise<void>;
}

const SCOPES = ["mcp:read"];

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)));
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    request.on("end", () => resolve(body));
  });
}

/** `accessTokenTtlSeconds`: how long an access token lasts (the refresh tests make it short). */
export async function startAuthorizationServer(options: { accessTokenTtlSeconds?: number } = {}): Promise<AuthorizationServer> {
  const tokenRequests: TokenRequest[] = [];
  const revocations: string[] = [];
  const issued: string[] = [];
  let account = "ada";
  // biome-ignore lint/suspicious/noExplicitAny: oidc-provider ships no types
  let provider: any;
  const http = createServer((request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    if (url.pathname.startsWith("/interaction/")) {
      void finishInteraction(request, response);
      return;
    }
    if (request.method === "POST" && (url.pathname === "/token" || url.pathname === "/token/revocation")) {
      // The body is read again by oidc-provider: it is pushed back onto the request.
      void readBody(request).then((body) => {
        const params = new URLSearchParams(body);
        if (url.pathname === "/token") tokenRequests.push({ grantType: params.get("grant_type") ?? "", at: Date.now() });
        else revocations.push(params.get("token") ?? "");
        (request as IncomingMessage & { body?: unknown }).body = Object.fromEntries(params);
        provider.callback()(request, response);
      });
      return;
    }
    provider.callback()(request, response);
  });
  const port = await listen(http);
  const issuer = `http://127.0.0.1:${port}`;

  provider = new Provider(issuer, {
    clients: [],
    findAccount: async (_ctx: unknown, id: string) => ({ accountId: id, claims: async () => ({ sub: id }) }),
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: async (_ctx: unknown, _client: unknown, oneOf?: string[]) => oneOf?.[0],
        useGrantedResource: async () => true,
        getResourceServerInfo: async () => ({
          scope: SCOPES.join(" "),
          accessTokenFormat: "opaque",
          accessTokenTTL: options.accessTokenTtlSeconds ?? 3600,
        }),
      },
    },
    scopes: ["openid", "offline_access", ...SCOPES],
    clientDefaults: { grant_types: ["authorization_code", "refresh_token"], token_endpoint_auth_method: "none" },
    issueRefreshToken: async () => true,
    rotateRefreshToken: true,
    pkce: { required: () => true },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    cookies: { keys: ["test-cookie-key"] },
  });
  provider.proxy = false;
  // Opaque tokens are their own id.
  for (const event of ["access_token.saved", "refresh_token.saved"]) provider.on(event, (token: { jti: string }) => issued.push(token.jti));

  /** The sign-in and the consent, answered as `account` with every scope and resource asked for. */
  async function finishInteraction(request: IncomingMessage, response: ServerResponse): Promise<void> {
    try {
      const details = await provider.interactionDetails(request, response);
      if (details.prompt.name === "login") {
        await provider.interactionFinished(request, response, { login: { accountId: account } }, { mergeWithLastSubmission: false });
        return;
      }
      const grant = details.grantId
        ? await provider.Grant.find(details.grantId)
        : new provider.Grant({ accountId: details.session.accountId, clientId: details.params.client_id });
      const missing = details.prompt.details;
      if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(" "));
      for (const [resource, scopes] of Object.entries(missing.missingResourceScopes ?? {}))
        grant.addResourceScope(resource, (scopes as string[]).join(" "));
      const grantId = await grant.save();
      await provider.interactionFinished(request, response, { consent: { grantId } }, { mergeWithLastSubmission: true });
    } catch (error) {
      response.writeHead(500).end(String(error));
    }
  }

  return {
    issuer,
    tokenRequests,
    revocations,
    issued,
    signInAs(id) {
      account = id;
    },
    async accountOf(token, resource) {
      const found = await provider.AccessToken.find(token);
      if (!found || found.isExpired) return undefined;
      const audience = [found.aud].flat();
      return audience.includes(resource) ? found.accountId : undefined;
    },
    async refreshTokenValid(token) {
      const found = await provider.RefreshToken.find(token);
      return Boolean(found && !found.isExpired && !found.consumed);
    },
    async endAccessToken(token) {
      await (await provider.AccessToken.find(token))?.destroy();
    },
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

/**
 * The SDK's MCP server behind `as`: a request without a token valid for it is answered 401 with a
 * challenge naming its protected-resource metadata (RFC 9728), served at the well-known path.
 * Its `whoami` tool answers with the account the token belongs to.
 */
export async function startProtectedMcpServer(
  options: {
    accessTokenTtlSeconds?: number /** The 401 names no metadata: it is found at the well-known place. */;
    bareChallenge?: boolean;
    /** More tools beside `whoami`. */
    tools?: ToolSetup;
  } = {},
): Promise<ProtectedMcpServer> {
  const as = await startAuthorizationServer(options);
  let resource = "";
  let metadataUrl = "";
  const mcp = await startMcpHttpServer({
    protect: async (request, response, url) => {
      if (url.pathname === "/.well-known/oauth-protected-resource/mcp") {
        response.writeHead(200, { "content-type": "application/json" }).end(
          JSON.stringify({
            resource,
            authorization_servers: [as.issuer],
            scopes_supported: SCOPES,
            bearer_methods_supported: ["header"],
          }),
        );
        return false;
      }
      const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1];
      const account = token ? await as.accountOf(token, resource) : undefined;
      if (!account) {
        const challenge = options.bareChallenge
          ? 'Bearer error="invalid_token"'
          : `Bearer error="invalid_token", resource_metadata="${metadataUrl}"`;
        response.writeHead(401, { "www-authenticate": challenge }).end();
        return false;
      }
      (request as IncomingMessage & { auth?: unknown }).auth = { token, clientId: "", scopes: SCOPES, extra: { account } };
      return true;
    },
    tools: (server) => {
      server.registerTool("whoami", { description: "says who the token is for", annotations: { readOnlyHint: true } }, async (extra) => ({
        content: [{ type: "text", text: `you are ${String((extra.authInfo?.extra as { account?: string } | undefined)?.account)}` }],
      }));
      options.tools?.(server);
    },
  });
  resource = mcp.url;
  metadataUrl = new URL("/.well-known/oauth-protected-resource/mcp", mcp.url).toString();
  return {
    mcp,
    url: mcp.url,
    as,
    async close() {
      await mcp.kill();
      await as.close();
    },
  };
}
