// The MCP SDK's OAuthClientProvider for one person and one `user` server, backed by the
// connection store: the SDK runs the protocol (discovery, registration, PKCE, the token exchange,
// refresh, step-up); this file only says where things are kept and what the bot is called. Two
// modes: `link` while a Connect link is opened and called back (it holds the link's nonce for the
// PKCE verifier), `session` while calls run (a login it would need is recorded, never started).
import type { OAuthClientProvider, OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { McpAuth } from "./auth-config.js";
import type { ConnectionOwner, ConnectionStore } from "./connection-store.js";

export const CLIENT_NAME = "guarded-agent-bot";

/** Where the bot is reached: the redirect every provider registers, and the client ID metadata document when it is https. */
export interface ClientAddress {
  readonly redirectUrl: string;
  /** Only an https address with a path can be a client ID (the SDK's rule); otherwise the bot registers itself. */
  readonly clientMetadataUrl?: string;
}

export interface PersonAuthInput {
  readonly server: string;
  readonly auth: McpAuth | undefined;
  readonly owner: ConnectionOwner;
  readonly store: ConnectionStore;
  readonly address: ClientAddress;
  readonly mode: { readonly kind: "link"; readonly nonce: string; readonly state: string } | { readonly kind: "session" };
}

/** What the bot says about itself to an authorization server (dynamic registration, or its metadata document). */
export function clientMetadataOf(address: ClientAddress, auth: McpAuth | undefined): OAuthClientMetadata {
  return {
    client_name: CLIENT_NAME,
    redirect_uris: [address.redirectUrl],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: auth?.clientSecret ? "client_secret_basic" : "none",
    ...(address.clientMetadataUrl ? { client_uri: new URL(address.clientMetadataUrl).origin } : {}),
    ...(auth?.scope ? { scope: auth.scope } : {}),
  };
}

export class PersonAuthProvider implements OAuthClientProvider {
  /** Set when the SDK asked to send the person to the authorization server. */
  authorizationUrl: URL | undefined;
  readonly clientMetadataUrl: string | undefined;
  private readonly input: PersonAuthInput;
  private wanted: string | undefined;

  constructor(input: PersonAuthInput) {
    this.input = input;
    // A pre-registered client is used as it is; otherwise the metadata document, when the address allows one.
    this.clientMetadataUrl = input.auth?.clientId ? undefined : input.address.clientMetadataUrl;
  }

  get redirectUrl(): string {
    return this.input.address.redirectUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return clientMetadataOf(this.input.address, this.input.auth);
  }

  state(): string {
    return this.input.mode.kind === "link" ? this.input.mode.state : "";
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    const { auth, store, server } = this.input;
    if (auth?.clientId) return { client_id: auth.clientId, ...(auth.clientSecret ? { client_secret: auth.clientSecret } : {}) };
    return store.clientInformation(server);
  }

  async saveClientInformation(information: OAuthClientInformationMixed): Promise<void> {
    // A pre-registered client lives in mcp.json; the SDK's stamp on it is not needed to use it.
    if (this.input.auth?.clientId) return;
    await this.input.store.saveClientInformation(this.input.server, information);
  }

  /** A server asked for more than the connection holds (403 insufficient_scope): only a new sign-in can give it. */
  stepUp(scope: string): void {
    this.wanted = scope;
  }

  /** The scope a step-up asked for, once the SDK wanted to send the person to sign in again. */
  get steppedUp(): string | undefined {
    return this.authorizationUrl ? (this.wanted ?? undefined) : undefined;
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    // A link starts a login of its own, and a step-up needs one: the tokens held (if any) are not refreshed in its place.
    if (this.input.mode.kind === "link" || this.wanted !== undefined) return undefined;
    return (await this.input.store.connection(this.input.owner, this.input.server))?.tokens;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    await this.input.store.saveTokens(this.input.owner, this.input.server, tokens);
  }

  redirectToAuthorization(authorizationUrl: URL): void {
    this.authorizationUrl = authorizationUrl;
  }

  async saveCodeVerifier(codeVerifier: string): Promise<void> {
    if (this.input.mode.kind === "link") await this.input.store.saveVerifier(this.input.mode.nonce, codeVerifier);
  }

  async codeVerifier(): Promise<string> {
    const verifier = this.input.mode.kind === "link" ? await this.input.store.verifier(this.input.mode.nonce) : undefined;
    if (verifier === undefined) throw new Error("this Connect link's login is not known (it expired, or was opened elsewhere)");
    return verifier;
  }

  async invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): Promise<void> {
    const { store, server, owner, auth } = this.input;
    if ((scope === "all" || scope === "client") && !auth?.clientId) await store.forgetClient(server);
    if (scope === "all" || scope === "tokens") await store.forget(owner, server);
    if (scope === "all" || scope === "discovery") await store.forgetDiscovery(server);
  }

  saveDiscoveryState(state: OAuthDiscoveryState): Promise<void> {
    return this.input.store.saveDiscovery(this.input.server, state);
  }

  discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    return this.input.store.discovery(this.input.server);
  }
}
