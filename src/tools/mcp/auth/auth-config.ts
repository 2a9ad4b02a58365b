// A server's `auth` entry in mcp.json: how the bot proves who it is to an HTTP MCP server behind
// OAuth. `user`: each person connects their own account from the chat; `service`: the bot's own
// client credentials (a secret, or a private key signing a JWT); `none`: no OAuth at all. No entry:
// discovered, so a 401 that names the server's resource metadata makes it a `user` server.
import { createPrivateKey } from "node:crypto";
import { z } from "zod";

export type McpAuthType = "user" | "service" | "none";

/** The algorithms a private-key JWT may be signed with (RFC 7518 names). */
export const SIGNING_ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"] as const;

export interface McpAuth {
  readonly type: McpAuthType;
  /** Pre-registered at the provider; without it the bot serves a client ID metadata document, else registers itself. */
  readonly clientId?: string;
  readonly clientSecret?: string;
  /** PEM: a `service` server's client proves itself with a JWT signed by this key (private_key_jwt). */
  readonly privateKey?: string;
  readonly signingAlgorithm?: (typeof SIGNING_ALGORITHMS)[number];
  /** Asked for when neither the server's 401 nor its metadata says which scopes it wants. */
  readonly scope?: string;
}

const secret = (what: string) => z.string({ error: `expects ${what} (or \${ENV_NAME})` }).min(1, `expects ${what} (or \${ENV_NAME})`);

export const AuthEntry = z.strictObject({
  type: z.enum(["user", "service", "none"], { error: 'expects "user", "service" or "none"' }),
  clientId: secret("the client ID registered at the provider").optional(),
  clientSecret: secret("the client secret").optional(),
  privateKey: secret("a PEM private key").optional(),
  signingAlgorithm: z.enum(SIGNING_ALGORITHMS, { error: `expects one of ${SIGNING_ALGORITHMS.join(", ")}` }).optional(),
  scope: z.string({ error: "expects scopes separated by spaces" }).min(1, "expects scopes separated by spaces").optional(),
});

/** The rules across fields, once `${ENV}` is expanded; throws with the field's name and what is wrong. */
export function checkAuth(auth: McpAuth, headers: Readonly<Record<string, string>>): McpAuth {
  const field = (name: string, problem: string): never => {
    throw new Error(`field "auth.${name}": ${problem}`);
  };
  if (auth.type !== "none" && Object.keys(headers).some((name) => name.toLowerCase() === "authorization"))
    field("type", `"${auth.type}" takes the place of an Authorization header; remove the header`);
  if (auth.type === "none") {
    for (const name of ["clientId", "clientSecret", "privateKey", "signingAlgorithm", "scope"] as const)
      if (auth[name] !== undefined) field(name, 'is not used with "type": "none"');
    return auth;
  }
  if (auth.clientSecret !== undefined && auth.clientId === undefined)
    field("clientSecret", "needs auth.clientId, the client it belongs to");
  if (auth.privateKey !== undefined && auth.clientSecret !== undefined) field("privateKey", "and auth.clientSecret exclude each other");
  if (auth.signingAlgorithm !== undefined && auth.privateKey === undefined) field("signingAlgorithm", "needs auth.privateKey");
  if (auth.privateKey !== undefined) {
    if (auth.type !== "service") field("privateKey", 'is for "type": "service" (the client-credentials grant)');
    try {
      createPrivateKey(auth.privateKey);
    } catch {
      field("privateKey", "is not a PEM private key");
    }
  }
  if (auth.type === "service") {
    if (auth.clientId === undefined) field("clientId", 'is needed for "type": "service"');
    if (auth.clientSecret === undefined && auth.privateKey === undefined)
      field("clientSecret", 'or auth.privateKey is needed for "type": "service"');
  }
  return auth;
}
