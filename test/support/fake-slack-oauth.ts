// The fake Slack's OAuth side, as strict as Slack: oauth.v2.access exchanges a code once (for the
// app's client id and secret, and the redirect URI the authorize step was given), or a refresh
// token once (token rotation: a new access token that lives `expires_in` seconds and a new refresh
// token); auth.test answers for the token's own workspace; auth.revoke ends a token. Every other
// call is checked here too: no token is not_authed, an unknown or revoked one invalid_auth or
// token_revoked, an expired one token_expired. A bot token the fake did not issue (xoxb-… as a
// single-workspace test pastes one) is the default workspace's static token, which never expires.
import { randomBytes } from "node:crypto";
import { APP_ID, BOT_ID, BOT_USER_ID, TEAM_ID } from "./fake-slack-types.js";

export const CLIENT_ID = "1111.2222";
export const CLIENT_SECRET = "fake-client-secret";

/** A workspace (or an Enterprise Grid org for an org-wide install) that can install the app. */
export interface FakeWorkspace {
  readonly team?: { readonly id: string; readonly name: string };
  readonly enterprise?: { readonly id: string; readonly name: string };
  readonly orgInstall?: boolean;
  readonly botUserId: string;
  readonly botId: string;
  /** The person who installs it. */
  readonly installer?: string;
}

export const DEFAULT_WORKSPACE: FakeWorkspace = {
  team: { id: TEAM_ID, name: "Fake" },
  botUserId: BOT_USER_ID,
  botId: BOT_ID,
};

interface IssuedToken {
  readonly workspace: FakeWorkspace;
  /** Epoch ms; none: never expires. */
  readonly expiresAt?: number;
  revoked: boolean;
}

export type TokenCheck = { readonly ok: true; readonly workspace: FakeWorkspace } | { readonly ok: false; readonly error: string };

export interface FakeSlackOauthControls {
  /** Token rotation on (the app's setting): installs and refreshes issue tokens that live `expiresInSeconds`. */
  rotateTokens(expiresInSeconds: number): void;
  /** What Slack's authorize page hands back after a person approved: a code for `workspace`, good once, for `redirectUri`. */
  issueCode(workspace: FakeWorkspace, redirectUri?: string): string;
  /** How often each refresh token was presented (a healthy bot: once each). */
  readonly refreshUses: ReadonlyMap<string, number>;
  /** The workspace a token was issued for (undefined: not one the fake issued). */
  workspaceOfToken(token: string): FakeWorkspace | undefined;
}

/** Marks the tokens this fake issued (`xoxb-fake-…`, `xoxe.xoxb-fake-…`). */
const ISSUED = "fake-";
const isStatic = (token: string) => token.startsWith("xoxb-") && !token.startsWith(`xoxb-${ISSUED}`);

const keyOf = (workspace: FakeWorkspace) => (workspace.orgInstall ? `E:${workspace.enterprise?.id}` : `T:${workspace.team?.id}`);

export function createFakeSlackOauth() {
  const tokens = new Map<string, IssuedToken>();
  const refreshTokens = new Map<string, FakeWorkspace>();
  const refreshUses = new Map<string, number>();
  const codes = new Map<string, { readonly workspace: FakeWorkspace; readonly redirectUri?: string }>();
  let expiresInSeconds: number | undefined;
  const random = () => randomBytes(9).toString("hex");

  function issue(workspace: FakeWorkspace) {
    const rotating = expiresInSeconds !== undefined;
    const accessToken = `${rotating ? "xoxe.xoxb-" : "xoxb-"}${ISSUED}${keyOf(workspace)}-${random()}`;
    tokens.set(accessToken, {
      workspace,
      revoked: false,
      ...(rotating ? { expiresAt: Date.now() + expiresInSeconds! * 1000 } : {}),
    });
    if (!rotating) return { access_token: accessToken };
    const refreshToken = `xoxe-1-${random()}`;
    refreshTokens.set(refreshToken, workspace);
    return { access_token: accessToken, refresh_token: refreshToken, expires_in: expiresInSeconds! };
  }

  const grantOf = (workspace: FakeWorkspace) => ({
    app_id: APP_ID,
    scope: "app_mentions:read,chat:write",
    token_type: "bot",
    bot_user_id: workspace.botUserId,
    team: workspace.orgInstall ? null : (workspace.team ?? null),
    enterprise: workspace.enterprise ?? null,
    is_enterprise_install: workspace.orgInstall === true,
  });

  function check(token: string | undefined): TokenCheck {
    if (!token) return { ok: false, error: "not_authed" };
    const issued = tokens.get(token);
    if (!issued) return isStatic(token) ? { ok: true, workspace: DEFAULT_WORKSPACE } : { ok: false, error: "invalid_auth" };
    if (issued.revoked) return { ok: false, error: "token_revoked" };
    if (issued.expiresAt !== undefined && Date.now() >= issued.expiresAt) return { ok: false, error: "token_expired" };
    return { ok: true, workspace: issued.workspace };
  }

  const api = {
    "oauth.v2.access": (args: Record<string, unknown>) => {
      if (args.client_id !== CLIENT_ID || args.client_secret !== CLIENT_SECRET) return { ok: false, error: "invalid_client_id" };
      if (args.grant_type === "refresh_token") {
        const presented = String(args.refresh_token ?? "");
        refreshUses.set(presented, (refreshUses.get(presented) ?? 0) + 1);
        const workspace = refreshTokens.get(presented);
        if (!workspace) return { ok: false, error: "invalid_refresh_token" };
        refreshTokens.delete(presented);
        return { ok: true, ...grantOf(workspace), ...issue(workspace) };
      }
      const code = codes.get(String(args.code ?? ""));
      if (!code) return { ok: false, error: "invalid_code" };
      codes.delete(String(args.code));
      if (code.redirectUri !== undefined && args.redirect_uri !== code.redirectUri) return { ok: false, error: "bad_redirect_uri" };
      const { workspace } = code;
      return { ok: true, ...grantOf(workspace), authed_user: { id: workspace.installer ?? "U0INSTALLER" }, ...issue(workspace) };
    },
    /** For the token's own workspace. */
    "auth.test": (_args: Record<string, unknown>, caller: FakeWorkspace) => ({
      ok: true,
      url: "https://fake.slack/",
      team: caller.team?.name ?? caller.enterprise?.name,
      user: "bot",
      team_id: caller.team?.id ?? "",
      user_id: caller.botUserId,
      bot_id: caller.botId,
      ...(caller.enterprise ? { enterprise_id: caller.enterprise.id } : {}),
      is_enterprise_install: caller.orgInstall === true,
    }),
    "auth.revoke": (_args: Record<string, unknown>, _caller: FakeWorkspace, token: string) => {
      const issued = tokens.get(token);
      if (issued) issued.revoked = true;
      return { ok: true, revoked: true };
    },
  };

  const controls: FakeSlackOauthControls = {
    rotateTokens(seconds) {
      expiresInSeconds = seconds;
    },
    issueCode(workspace, redirectUri) {
      const code = `code-${random()}`;
      codes.set(code, { workspace, ...(redirectUri === undefined ? {} : { redirectUri }) });
      return code;
    },
    refreshUses,
    workspaceOfToken: (token) => tokens.get(token)?.workspace,
  };
  /** A token this fake issued that Slack still takes (the file host knows no static token but the tests' own). */
  const issuedAndValid = (token: string) => tokens.has(token) && check(token).ok;
  return { api, check, issuedAndValid, controls };
}
