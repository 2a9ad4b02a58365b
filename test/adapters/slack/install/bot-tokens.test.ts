// The one token source with token rotation on, against the fake Slack's oauth.v2.access: a token
// is refreshed before it expires, once across two processes sharing one store (two connections to
// one SQLite file), the rotated refresh token is stored before the new token is handed out, and a
// refresh token is never presented twice.
import { join } from "node:path";
import { webApi } from "@slack/bolt";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Installation } from "@slack/oauth";
import { silentLogger } from "../../../../src/logger.js";
import { openStore } from "../../../../src/memory/keyv-store.js";
import type { KeyValueStore } from "../../../../src/memory/types.js";
import { createBotTokens, isFresh } from "../../../../src/adapters/slack/install/bot-tokens.js";
import { createSlackInstallations } from "../../../../src/adapters/slack/install/installation-store.js";
import { createSealedBox } from "../../../../src/tools/mcp/auth/sealed-box.js";
import { startFakeSlack, type FakeSlack } from "../../../support/fake-slack.js";
import { CLIENT_ID, CLIENT_SECRET } from "../../../support/fake-slack-oauth.js";
import { ALPHA } from "../../../support/slack-installs.js";
import { temporaryFolder } from "../../../support/temporary-folder.js";

let fake: FakeSlack;
let folder: Awaited<ReturnType<typeof temporaryFolder>>;
let stores: KeyValueStore[];
const box = createSealedBox(async () => Buffer.alloc(32, 3));
const ALPHA_REF = { team: "T0ALPHA", orgInstall: false };

beforeEach(async () => {
  fake = await startFakeSlack();
  folder = await temporaryFolder();
  const file = `sqlite://${join(folder.path, "bot.sqlite")}`;
  stores = [await openStore(file, silentLogger), await openStore(file, silentLogger)];
});
afterEach(async () => {
  for (const store of stores) await store.close();
  await folder.remove();
  await fake.close();
});

/** A process's token source: its own store connection, Slack's refresh through the fake. */
function processTokens(store: KeyValueStore) {
  const client = new webApi.WebClient(undefined, { slackApiUrl: fake.apiUrl, retryConfig: { retries: 0 } });
  return createBotTokens({
    installations: createSlackInstallations(store, box),
    store,
    timing: { pollMs: 10 },
    async refresh(refreshToken) {
      const answer = await client.oauth.v2.access({
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
        grant_type: "refresh_token",
        refresh_token: refreshToken,
      });
      return {
        accessToken: String(answer.access_token),
        refreshToken: String(answer.refresh_token),
        expiresInSeconds: Number(answer.expires_in),
      };
    },
  });
}

/** Installs ALPHA through the fake's code exchange with tokens that live `seconds`. */
async function installAlpha(seconds: number): Promise<Installation> {
  fake.rotateTokens(seconds);
  const client = new webApi.WebClient(undefined, { slackApiUrl: fake.apiUrl });
  const grant = await client.oauth.v2.access({ client_id: CLIENT_ID, client_secret: CLIENT_SECRET, code: fake.issueCode(ALPHA) });
  const installation: Installation = {
    team: { id: "T0ALPHA", name: "Alpha" },
    enterprise: undefined,
    user: { id: "U0ANNA", token: undefined, scopes: undefined },
    bot: {
      token: String(grant.access_token),
      refreshToken: String(grant.refresh_token),
      expiresAt: Math.floor(Date.now() / 1000) + Number(grant.expires_in),
      scopes: ["chat:write"],
      id: ALPHA.botId,
      userId: ALPHA.botUserId,
    },
    isEnterpriseInstall: false,
    authVersion: "v2",
  };
  await createSlackInstallations(stores[0]!, box).store(installation);
  return installation;
}

/** Waits until the installed bot token has `ms` left (Slack's expiry is in whole seconds). */
const untilLeft = (installed: Installation, ms: number) =>
  new Promise((resolve) => setTimeout(resolve, Math.max(0, installed.bot!.expiresAt! * 1000 - ms - Date.now())));

describe("the bot token source", () => {
  it("hands out the stored token while it has more than the margin left, and says undefined for a workspace never installed", async () => {
    const installed = await installAlpha(3_600);
    const tokens = processTokens(stores[0]!);
    expect((await tokens.credentialsOf(ALPHA_REF))?.token).toBe(installed.bot!.token);
    expect(await tokens.credentialsOf({ team: "T0NOBODY", orgInstall: false })).toBeUndefined();
    expect(fake.callsTo("oauth.v2.access")).toHaveLength(1);
  });

  it("refreshes an expiring token once across two processes, storing the rotated refresh token first", async () => {
    const installed = await installAlpha(3);
    const [one, two] = stores.map(processTokens);
    // Within the margin (the last second of three): both processes see a token about to expire and ask at once, many times over.
    await untilLeft(installed, 900);
    const asked = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? one! : two!).credentialsOf(ALPHA_REF)));
    const handedOut = new Set(asked.map((credentials) => credentials?.token));
    expect(handedOut.size).toBe(1);
    expect(handedOut.has(installed.bot!.token)).toBe(false);

    const refreshes = fake.callsTo("oauth.v2.access").filter((call) => call.args.grant_type === "refresh_token");
    expect(refreshes).toHaveLength(1);
    expect([...fake.refreshUses.values()]).toEqual([1]);
    // What is stored is the rotated pair: the next refresh spends the new refresh token, not the spent one.
    const stored = await createSlackInstallations(stores[1]!, box).fetch(ALPHA_REF);
    expect(stored?.installation.bot?.token).toBe([...handedOut][0]);
    expect(stored?.installation.bot?.refreshToken).not.toBe(installed.bot!.refreshToken);
    expect(stored?.lifetimeSeconds).toBe(3);
    const check = await new webApi.WebClient([...handedOut][0], { slackApiUrl: fake.apiUrl }).auth.test();
    expect(check.team_id).toBe("T0ALPHA");
  });

  it("rejects when Slack refuses the refresh, and hands out no expired token", async () => {
    const installed = await installAlpha(3);
    fake.fail("oauth.v2.access", { error: "invalid_refresh_token" });
    await untilLeft(installed, 900);
    await expect(processTokens(stores[0]!).credentialsOf(ALPHA_REF)).rejects.toThrow(/invalid_refresh_token/);
  });
});

describe("isFresh", () => {
  const stored = (expiresInMs: number, lifetimeSeconds?: number) => ({
    installation: {
      bot: { token: "t", refreshToken: "r", expiresAt: (Date.now() + expiresInMs) / 1000, scopes: [], id: "B", userId: "U" },
    } as unknown as Installation,
    ...(lifetimeSeconds ? { lifetimeSeconds } : {}),
  });
  const margins = { marginMs: 15 * 60_000, marginShare: 1 / 3 };

  it("keeps a 12-hour token until 15 minutes before it expires, a short-lived one until the last third", () => {
    expect(isFresh(stored(16 * 60_000, 43_200), Date.now(), margins)).toBe(true);
    expect(isFresh(stored(14 * 60_000, 43_200), Date.now(), margins)).toBe(false);
    expect(isFresh(stored(2_500, 6), Date.now(), margins)).toBe(true);
    expect(isFresh(stored(1_500, 6), Date.now(), margins)).toBe(false);
  });

  it("a token without rotation never needs a refresh", () => {
    expect(
      isFresh({ installation: { bot: { token: "t", scopes: [], id: "B", userId: "U" } } as unknown as Installation }, Date.now(), margins),
    ).toBe(true);
  });
});
