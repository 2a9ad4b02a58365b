// A `service` server's client: the MCP SDK's client-credentials providers, the bot signing in as
// itself with a client secret (basic or post, as the authorization server's metadata says) or
// with a JWT signed by its private key. The token lives in the provider, in this process only.
import { createPrivateKey } from "node:crypto";
import { ClientCredentialsProvider, PrivateKeyJwtProvider } from "@modelcontextprotocol/sdk/client/auth-extensions.js";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type { McpAuth } from "./auth-config.js";
import { CLIENT_NAME } from "./person-auth-provider.js";

/** Undefined for any auth but `service`; the entry was checked at start (a client ID and a secret or a key). */
export function serviceAuthProvider(auth: McpAuth | undefined): OAuthClientProvider | undefined {
  if (auth?.type !== "service" || !auth.clientId) return undefined;
  const scope = auth.scope ? { scope: auth.scope } : {};
  if (auth.privateKey)
    return new PrivateKeyJwtProvider({
      clientId: auth.clientId,
      privateKey: auth.privateKey,
      algorithm: auth.signingAlgorithm ?? algorithmOf(auth.privateKey),
      clientName: CLIENT_NAME,
      ...scope,
    });
  if (auth.clientSecret)
    return new ClientCredentialsProvider({ clientId: auth.clientId, clientSecret: auth.clientSecret, clientName: CLIENT_NAME, ...scope });
  return undefined;
}

/** The usual algorithm for the key's type when mcp.json names none: ES256/384/512 by curve, EdDSA, else RS256. */
function algorithmOf(pem: string): string {
  const key = createPrivateKey(pem);
  if (key.asymmetricKeyType === "ed25519") return "EdDSA";
  if (key.asymmetricKeyType !== "ec") return "RS256";
  const curve = key.asymmetricKeyDetails?.namedCurve;
  return curve === "secp384r1" ? "ES384" : curve === "secp521r1" ? "ES512" : "ES256";
}
