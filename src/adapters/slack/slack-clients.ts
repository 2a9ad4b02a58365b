// The Slack Web API clients of the surface, per workspace: with SLACK_BOT_TOKEN one pair serves
// every place (the one workspace it was made for); with installs, each workspace's pair asks its
// installation for a valid token before each call (install/bot-tokens.ts). Reads and posts may
// be retried; writes a person approved go through a client that never repeats them.
import { webApi } from "@slack/bolt";
import type { BotTokens } from "./install/bot-tokens.js";
import { WorkspaceWebClient } from "./install/workspace-client.js";
import { installationKey, type WorkspaceRef } from "./install/workspace-ref.js";

export interface SlackClients {
  /** Reads and posts (retried as the client's policy says). */
  of(ref: WorkspaceRef): webApi.WebClient;
  /** Writes a person approved: tried once. */
  writerOf(ref: WorkspaceRef): webApi.WebClient;
  /** The bot token to send with a download from Slack's file host, asked right before it. */
  tokenOf(ref: WorkspaceRef): Promise<string>;
}

export interface ClientOptions {
  readonly reads: webApi.WebClientOptions;
  readonly writes: webApi.WebClientOptions;
}

export function singleWorkspaceClients(botToken: string, options: ClientOptions): SlackClients {
  const client = new webApi.WebClient(botToken, options.reads);
  const writer = new webApi.WebClient(botToken, options.writes);
  return { of: () => client, writerOf: () => writer, tokenOf: async () => botToken };
}

/** Thrown by a call for a workspace that has no installation (uninstalled, or never installed). */
export class NotInstalledError extends Error {
  readonly code = "slack_not_installed";
  constructor(key: string | undefined) {
    super(`the Slack app is not installed in ${key ?? "this workspace"}`);
    this.name = "NotInstalledError";
  }
}

export function installedWorkspaceClients(tokens: BotTokens, options: ClientOptions): SlackClients & { forget(ref: WorkspaceRef): void } {
  const pairs = new Map<string, { readonly client: webApi.WebClient; readonly writer: webApi.WebClient }>();
  const tokenOf = async (ref: WorkspaceRef) => {
    const credentials = await tokens.credentialsOf(ref);
    if (!credentials) throw new NotInstalledError(installationKey(ref));
    return credentials.token;
  };
  const pairOf = (ref: WorkspaceRef) => {
    const key = `${installationKey(ref) ?? ""}/${ref.team ?? ""}`;
    let pair = pairs.get(key);
    if (!pair) {
      const teamId = ref.orgInstall ? ref.team : undefined;
      // An org-wide token names the workspace of each call (team_id).
      const scoped = (base: webApi.WebClientOptions) => (teamId ? { ...base, teamId } : base);
      pair = {
        client: new WorkspaceWebClient(() => tokenOf(ref), scoped(options.reads)),
        writer: new WorkspaceWebClient(() => tokenOf(ref), scoped(options.writes)),
      };
      pairs.set(key, pair);
    }
    return pair;
  };
  return {
    of: (ref) => pairOf(ref).client,
    writerOf: (ref) => pairOf(ref).writer,
    tokenOf,
    forget(ref) {
      const key = installationKey(ref) ?? "";
      for (const held of pairs.keys()) if (held.startsWith(`${key}/`)) pairs.delete(held);
    },
  };
}
