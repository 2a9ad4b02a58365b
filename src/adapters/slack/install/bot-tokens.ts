// The one way to a workspace's bot token: every path that calls Slack (events, clicks, answers
// posted after a restart or by another process, scheduled runs, resumed approvals, file downloads
// and uploads) asks here before each call. With token rotation on, a token that expires soon is
// refreshed first, once across every process sharing the store: under a lock in the store, the
// installation is read again (another process may have refreshed it meanwhile), the refresh token
// is spent, and the rotated pair is stored before the new access token is handed out, so a crash
// can never leave a spent refresh token as the only one kept.
import { randomBytes } from "node:crypto";
import type { Installation } from "@slack/oauth";
import type { KeyValueStore } from "../../../memory/types.js";
import type { SlackInstallations, StoredInstallation } from "./installation-store.js";
import { installationKey, type WorkspaceRef } from "./workspace-ref.js";

/** What a workspace's calls are made with. */
export interface BotCredentials {
  readonly token: string;
  readonly botUserId: string;
  readonly botId?: string;
  readonly teamId?: string;
  readonly enterpriseId?: string;
}

/** Slack's answer to a refresh (oauth.v2.access, grant_type refresh_token). */
export interface RotatedToken {
  readonly accessToken: string;
  readonly refreshToken: string;
  readonly expiresInSeconds: number;
}

export interface BotTokens {
  /** A token valid for at least the refresh margin, or undefined when the workspace has no installation. Rejects when a refresh failed. */
  credentialsOf(ref: WorkspaceRef): Promise<BotCredentials | undefined>;
}

export interface BotTokensDeps {
  readonly installations: SlackInstallations;
  /** Spends `refreshToken` once (no retry: a refresh token is good for one refresh). */
  readonly refresh: (refreshToken: string) => Promise<RotatedToken>;
  /** Where the refresh lock lives: every process of the deployment shares it. */
  readonly store: KeyValueStore;
  readonly clock?: () => number;
  readonly timing?: Partial<RefreshTiming>;
}

export interface RefreshTiming {
  /** A token is refreshed when it has less than this left (Slack's tokens live 12 hours)… */
  readonly marginMs: number;
  /** …or less than this share of its lifetime (short-lived tokens). */
  readonly marginShare: number;
  /** The lock outlives a refresh that hangs, and no more. */
  readonly lockMs: number;
  /** How long a process waits for another's refresh before it gives up. */
  readonly waitMs: number;
  readonly pollMs: number;
}

const DEFAULT_TIMING: RefreshTiming = { marginMs: 15 * 60_000, marginShare: 1 / 3, lockMs: 30_000, waitMs: 20_000, pollMs: 100 };

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Pure: whether the installation's bot token may still be used at `now` (a token without an expiry always may). */
export function isFresh(stored: StoredInstallation, now: number, timing: Pick<RefreshTiming, "marginMs" | "marginShare">): boolean {
  const bot = stored.installation.bot;
  if (!bot?.refreshToken || bot.expiresAt === undefined) return true;
  const lifetimeMs = (stored.lifetimeSeconds ?? Number.POSITIVE_INFINITY) * 1000;
  const margin = Math.min(timing.marginMs, lifetimeMs * timing.marginShare);
  return bot.expiresAt * 1000 - now > margin;
}

function credentialsOf(installation: Installation): BotCredentials | undefined {
  const bot = installation.bot;
  if (!bot) return undefined;
  const teamId = installation.team?.id;
  const enterpriseId = installation.enterprise?.id;
  return {
    token: bot.token,
    botUserId: bot.userId,
    ...(bot.id ? { botId: bot.id } : {}),
    ...(teamId ? { teamId } : {}),
    ...(enterpriseId ? { enterpriseId } : {}),
  };
}

export function createBotTokens(deps: BotTokensDeps): BotTokens {
  const { installations, store } = deps;
  const clock = deps.clock ?? Date.now;
  const timing = { ...DEFAULT_TIMING, ...deps.timing };
  const owner = randomBytes(9).toString("base64url");
  // One refresh per installation in this process; the others wait on it.
  const inFlight = new Map<string, Promise<BotCredentials | undefined>>();

  async function refreshUnderLock(ref: WorkspaceRef, key: string): Promise<BotCredentials | undefined> {
    const lock = `slack:token-refresh:${key}`;
    const giveUpAt = clock() + timing.waitMs;
    for (;;) {
      if (await store.setIfAbsent(lock, owner, timing.lockMs)) {
        try {
          const current = await installations.fetch(ref);
          if (!current) return undefined;
          if (isFresh(current, clock(), timing)) return credentialsOf(current.installation);
          const bot = current.installation.bot!;
          const rotated = await deps.refresh(bot.refreshToken!);
          const next: Installation = {
            ...current.installation,
            bot: {
              ...bot,
              token: rotated.accessToken,
              refreshToken: rotated.refreshToken,
              expiresAt: Math.floor(clock() / 1000) + rotated.expiresInSeconds,
            },
          };
          // Stored before it is used: the spent refresh token is never the only one kept.
          await installations.store(next, rotated.expiresInSeconds);
          return credentialsOf(next);
        } finally {
          if ((await store.get(lock)) === owner) await store.delete(lock);
        }
      }
      // Another process refreshes: its result is in the store once its lock goes.
      await sleep(timing.pollMs);
      const current = await installations.fetch(ref);
      if (!current) return undefined;
      if (isFresh(current, clock(), timing)) return credentialsOf(current.installation);
      if (clock() > giveUpAt) throw new Error(`the Slack token of ${key} could not be refreshed: another process holds the refresh`);
    }
  }

  return {
    async credentialsOf(ref) {
      const key = installationKey(ref);
      if (!key) return undefined;
      const stored = await installations.fetch(ref);
      if (!stored) return undefined;
      if (isFresh(stored, clock(), timing)) return credentialsOf(stored.installation);
      const running = inFlight.get(key);
      if (running) return running;
      const refreshing = refreshUnderLock(ref, key).finally(() => inFlight.delete(key));
      inFlight.set(key, refreshing);
      return refreshing;
    },
  };
}
