// Everything a Slack surface installed in several workspaces needs, built once: the installations
// in the store (sealed), the one token source every call goes through, Bolt's authorize over it,
// the per-workspace clients, and the install pages. The refresh is an oauth.v2.access call with the
// refresh-token grant through SLACK_API_URL when set, never repeated.
import type { RequestListener } from "node:http";
import { type Authorize, type Logger as SlackLogger, webApi } from "@slack/bolt";
import type { Logger } from "../../../logger.js";
import type { KeyValueStore } from "../../../memory/types.js";
import { createSealedBox, type KeyMaterial } from "../../../tools/mcp/auth/sealed-box.js";
import { type ClientOptions, installedWorkspaceClients, type SlackClients } from "../slack-clients.js";
import { type BotTokens, createBotTokens, type RefreshTiming, type RotatedToken } from "./bot-tokens.js";
import { createInstallStates } from "./install-states.js";
import { createSlackInstallations, type SlackInstallations } from "./installation-store.js";
import { slackInstallListener } from "./install-routes.js";
import { installationKey, refOfContext, type WorkspaceRef } from "./workspace-ref.js";

export interface SlackInstallsConfig {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly publicUrl: string;
  readonly apiUrl?: string;
}

export interface SlackInstallsDeps {
  readonly store: KeyValueStore;
  /** The approval key's material: tokens are sealed with a key derived from it (sealed-box.ts). */
  readonly sealingKey: KeyMaterial;
  readonly logger: Logger;
  readonly slackLogger: SlackLogger;
  readonly clientOptions: ClientOptions;
  readonly clock?: () => number;
  readonly timing?: Partial<RefreshTiming>;
  /** A workspace (or org) was installed, under its installation's key. */
  readonly installed?: (key: string) => Promise<void>;
}

export interface SlackInstalls {
  readonly installations: SlackInstallations;
  readonly tokens: BotTokens;
  readonly clients: SlackClients;
  readonly authorize: Authorize<boolean>;
  /** /slack/install and /slack/oauth_redirect. */
  readonly pages: RequestListener;
  /** The workspace is gone: its installation is deleted and its clients dropped. True when it had one. */
  remove(workspace: WorkspaceRef): Promise<boolean>;
}

const Refreshed = (answer: webApi.WebAPICallResult): RotatedToken => {
  const { access_token, refresh_token, expires_in } = answer as { access_token?: unknown; refresh_token?: unknown; expires_in?: unknown };
  if (typeof access_token !== "string" || typeof refresh_token !== "string" || typeof expires_in !== "number")
    throw new Error("Slack's token refresh answered without a rotated token");
  return { accessToken: access_token, refreshToken: refresh_token, expiresInSeconds: expires_in };
};

export function openSlackInstalls(config: SlackInstallsConfig, deps: SlackInstallsDeps): SlackInstalls {
  const installations = createSlackInstallations(deps.store, createSealedBox(deps.sealingKey), deps.clock);
  const refresher = new webApi.WebClient(undefined, {
    ...(config.apiUrl ? { slackApiUrl: config.apiUrl } : {}),
    logger: deps.slackLogger,
    retryConfig: { retries: 0 },
  });
  const tokens = createBotTokens({
    installations,
    store: deps.store,
    ...(deps.clock ? { clock: deps.clock } : {}),
    ...(deps.timing ? { timing: deps.timing } : {}),
    refresh: async (refreshToken) =>
      Refreshed(
        await refresher.oauth.v2.access({
          client_id: config.clientId,
          client_secret: config.clientSecret,
          grant_type: "refresh_token",
          refresh_token: refreshToken,
        }),
      ),
  });
  const clients = installedWorkspaceClients(tokens, deps.clientOptions);
  return {
    installations,
    tokens,
    clients,
    async authorize(source) {
      const workspace = refOfContext(source);
      const credentials = await tokens.credentialsOf(workspace);
      if (!credentials) throw new Error(`the app is not installed in ${installationKey(workspace) ?? "this workspace"}`);
      const { token, botUserId, botId } = credentials;
      return {
        botToken: token,
        botUserId,
        ...(botId ? { botId } : {}),
        ...(source.teamId ? { teamId: source.teamId } : {}),
        ...(source.enterpriseId ? { enterpriseId: source.enterpriseId } : {}),
      };
    },
    pages: slackInstallListener({
      clientId: config.clientId,
      clientSecret: config.clientSecret,
      publicUrl: config.publicUrl,
      ...(config.apiUrl ? { apiUrl: config.apiUrl } : {}),
      installations,
      states: createInstallStates(deps.store),
      logger: deps.logger,
      slackLogger: deps.slackLogger,
      ...(deps.installed ? { installed: deps.installed } : {}),
    }),
    async remove(workspace) {
      clients.forget(workspace);
      return installations.delete(workspace);
    },
  };
}
