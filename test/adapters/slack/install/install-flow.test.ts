// Installing the app in several workspaces through the bot's own install pages (@slack/oauth's
// InstallProvider on the process's port) against the fake Slack: the state is checked (cookie and
// store, once), every Slack call of the install goes to SLACK_API_URL, each workspace is answered
// with its own token only, and no token is kept readable in the store.
import { afterEach, describe, expect, it } from "vitest";
import { ScriptedModel, say } from "../../../support/model-scripted.js";
import { shownText } from "../../../support/fake-slack.js";
import { appUninstalledEvent, mentionEvent, postEvent, tokensRevokedEvent } from "../../../support/fake-slack-requests.js";
import type { SlackRemoval } from "../../../../src/adapters/slack/install/removal-events.js";
import { INSTALL_PUBLIC_URL, startSlackHarness, type SlackHarness } from "../../../support/slack-harness.js";
import { ALPHA, BETA, GRID, finishInstall, install, startInstall } from "../../../support/slack-installs.js";
import { CLIENT_ID } from "../../../support/fake-slack-oauth.js";
import { until } from "../../../support/until.js";
import { SLACK_BOT_SCOPES } from "../../../../src/adapters/slack/install/bot-scopes.js";
import { createSlackInstallations } from "../../../../src/adapters/slack/install/installation-store.js";
import { createSealedBox } from "../../../../src/tools/mcp/auth/sealed-box.js";

let harness: SlackHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const installsOf = (h: SlackHarness) =>
  createSlackInstallations(
    h.store,
    createSealedBox(async () => Buffer.alloc(32, 7)),
  );

describe("installing the app through /slack/install", () => {
  it("links to Slack's authorize page with the manifest's scopes, this app and the redirect at PUBLIC_URL, and sets the state cookie", async () => {
    harness = await startSlackHarness({ model: new ScriptedModel([]), installs: {} });
    const started = await startInstall(harness.baseUrl);
    const { searchParams } = started.authorizeUrl;
    expect(searchParams.get("scope")?.split(",")).toEqual([...SLACK_BOT_SCOPES]);
    expect(searchParams.get("client_id")).toBe(CLIENT_ID);
    expect(searchParams.get("redirect_uri")).toBe(`${INSTALL_PUBLIC_URL}slack/oauth_redirect`);
    expect(started.state).toMatch(/^[\w-]{32}$/);
    expect(started.cookie).toBe(`slack-app-oauth-state=${started.state}`);
  });

  it("installs two workspaces; each mention is answered with its own workspace's token only", async () => {
    harness = await startSlackHarness({ model: new ScriptedModel([say("hello Alpha"), say("hello Beta")]), installs: {} });
    const { fake, baseUrl } = harness;
    const alpha = await install(baseUrl, fake, ALPHA);
    expect(alpha.status).toBe(200);
    expect(await alpha.text()).toContain("installed in Alpha");
    expect((await install(baseUrl, fake, BETA)).status).toBe(200);
    // The code exchange and the bot's identity went to SLACK_API_URL (the fake), never elsewhere.
    expect(fake.callsTo("oauth.v2.access").filter((call) => !call.error)).toHaveLength(2);
    expect(fake.callsTo("auth.test").map((call) => call.workspace)).toEqual(["T:T0ALPHA", "T:T0BETA"]);

    const alphaAsks = { team: "T0ALPHA", botUserId: ALPHA.botUserId };
    await postEvent(
      harness.eventsUrl,
      mentionEvent({ text: "<@U0BOTA> hi", ts: "1700100000.000100", channel: "C0ALPHA", workspace: alphaAsks }),
    );
    await fake.waitForShown((text) => text === "hello Alpha");
    const betaAsks = { team: "T0BETA", botUserId: BETA.botUserId };
    await postEvent(
      harness.eventsUrl,
      mentionEvent({ text: "<@U0BOTB> hi", ts: "1700100001.000100", channel: "C0BETA", workspace: betaAsks }),
    );
    await fake.waitForShown((text) => text === "hello Beta");

    const inChannel = (channel: string) => fake.calls.filter((call) => call.args.channel === channel);
    expect(new Set(inChannel("C0ALPHA").map((call) => call.workspace))).toEqual(new Set(["T:T0ALPHA"]));
    expect(new Set(inChannel("C0BETA").map((call) => call.workspace))).toEqual(new Set(["T:T0BETA"]));
    expect(fake.shown().find((message) => shownText(message) === "hello Beta")?.user).toBe(BETA.botUserId);
  });

  it("lists the installs with names, ids and scopes, and keeps no token readable in the store", async () => {
    harness = await startSlackHarness({ model: new ScriptedModel([]), installs: {} });
    await install(harness.baseUrl, harness.fake, ALPHA);
    const listed = await installsOf(harness).list();
    expect(listed).toEqual([
      expect.objectContaining({ key: "T:T0ALPHA", team: { id: "T0ALPHA", name: "Alpha" }, orgInstall: false, botUserId: "U0BOTA" }),
    ]);
    const grant = harness.fake.calls.find((call) => call.method === "auth.test")!;
    const raw = JSON.stringify(await harness.store.get("slack:installation:T:T0ALPHA"));
    expect(raw).not.toContain(grant.token!);
    expect(JSON.stringify(listed)).not.toContain("xoxb");
    expect(harness.logs.map((line) => JSON.stringify(line)).join("\n")).not.toContain(grant.token!);
  });

  it("installs an Enterprise Grid org org-wide: a workspace of the org is answered with the org's token", async () => {
    harness = await startSlackHarness({ model: new ScriptedModel([say("hello Grid")]), installs: {} });
    const { fake, baseUrl } = harness;
    expect(await (await install(baseUrl, fake, GRID)).text()).toContain("installed in Grid Org");
    expect((await installsOf(harness).list())[0]).toMatchObject({ key: "E:E0GRID", orgInstall: true, enterprise: { id: "E0GRID" } });

    const gridAsks = { team: "T0GRID1", enterprise: "E0GRID", orgInstall: true, botUserId: GRID.botUserId };
    await postEvent(
      harness.eventsUrl,
      mentionEvent({ text: "<@U0BOTG> hi", ts: "1700100100.000100", channel: "C0GRID", workspace: gridAsks }),
    );
    await fake.waitForShown((text) => text === "hello Grid");
    const posts = fake.calls.filter((call) => call.args.channel === "C0GRID");
    expect(new Set(posts.map((call) => call.workspace))).toEqual(new Set(["E:E0GRID"]));
    // An org-wide token names the workspace of each call.
    expect(posts.every((call) => call.args.team_id === "T0GRID1")).toBe(true);
  });

  it("refuses a forged state, a replayed state and a state from another browser, and never exchanges their codes", async () => {
    harness = await startSlackHarness({ model: new ScriptedModel([]), installs: {} });
    const { fake, baseUrl } = harness;
    const forged = { ...(await startInstall(baseUrl)), state: "A".repeat(32) };
    const forgedAnswer = await finishInstall(baseUrl, fake, { ...forged, cookie: `slack-app-oauth-state=${forged.state}` }, ALPHA);
    expect(forgedAnswer.status).toBe(400);
    expect(await forgedAnswer.text()).toContain("already used, has expired");

    const started = await startInstall(baseUrl);
    expect((await finishInstall(baseUrl, fake, started, ALPHA, false)).status).toBe(400);
    expect((await finishInstall(baseUrl, fake, started, ALPHA)).status).toBe(200);
    const replayed = await finishInstall(baseUrl, fake, started, BETA);
    expect(replayed.status).toBe(400);
    expect(await replayed.text()).toContain("Nothing was installed");

    expect(fake.callsTo("oauth.v2.access")).toHaveLength(1);
    expect((await installsOf(harness).list()).map((entry) => entry.key)).toEqual(["T:T0ALPHA"]);
  });

  it("says so in a plain page when the person cancels in Slack or Slack refuses the code", async () => {
    harness = await startSlackHarness({ model: new ScriptedModel([]), installs: {} });
    const { fake, baseUrl } = harness;
    const started = await startInstall(baseUrl);
    const cancelled = await fetch(`${baseUrl}/slack/oauth_redirect?error=access_denied&state=${started.state}`, {
      headers: { cookie: started.cookie },
    });
    expect(cancelled.status).toBe(400);
    expect(await cancelled.text()).toContain("cancelled in Slack");

    const again = await startInstall(baseUrl);
    const refused = await fetch(`${baseUrl}/slack/oauth_redirect?code=never-issued&state=${again.state}`, {
      headers: { cookie: again.cookie },
    });
    expect(refused.status).toBe(502);
    const page = await refused.text();
    expect(page).toContain("answered &quot;invalid_code&quot;");
    expect(page).not.toContain("<script");
    expect(fake.callsTo("oauth.v2.access").map((call) => call.error)).toEqual(["invalid_code"]);
  });

  it("app_uninstalled deletes the installation: nothing more goes to that workspace, the other goes on, and a reinstall starts clean", async () => {
    const removed: SlackRemoval[] = [];
    const model = new ScriptedModel([say("hello Beta"), say("hello again Alpha")]);
    harness = await startSlackHarness({ model, installs: { removed: async (workspace) => void removed.push(workspace) } });
    const { fake, baseUrl } = harness;
    await install(baseUrl, fake, ALPHA);
    await install(baseUrl, fake, BETA);
    // A person's own token revoked changes nothing.
    await postEvent(harness.eventsUrl, tokensRevokedEvent({ team: "T0ALPHA" }, { oauth: ["U0ANNA"] }));
    expect((await installsOf(harness).list()).map((entry) => entry.key).sort()).toEqual(["T:T0ALPHA", "T:T0BETA"]);

    expect((await postEvent(harness.eventsUrl, appUninstalledEvent({ team: "T0ALPHA" }))).status).toBe(200);
    expect((await installsOf(harness).list()).map((entry) => entry.key)).toEqual(["T:T0BETA"]);
    expect(removed).toEqual([{ key: "T:T0ALPHA", id: "T0ALPHA", teams: ["T0ALPHA"], reason: "app_uninstalled" }]);

    const alphaAsks = { team: "T0ALPHA", botUserId: ALPHA.botUserId };
    await postEvent(
      harness.eventsUrl,
      mentionEvent({ text: "<@U0BOTA> still there?", ts: "1700300000.000100", channel: "C0ALPHA", workspace: alphaAsks }),
    );
    const betaAsks = { team: "T0BETA", botUserId: BETA.botUserId };
    await postEvent(
      harness.eventsUrl,
      mentionEvent({ text: "<@U0BOTB> hi", ts: "1700300001.000100", channel: "C0BETA", workspace: betaAsks }),
    );
    await fake.waitForShown((text) => text === "hello Beta");
    expect(fake.calls.filter((call) => call.args.channel === "C0ALPHA")).toEqual([]);

    expect((await install(baseUrl, fake, ALPHA)).status).toBe(200);
    await postEvent(
      harness.eventsUrl,
      mentionEvent({ text: "<@U0BOTA> back", ts: "1700300002.000100", channel: "C0ALPHA", workspace: alphaAsks }),
    );
    await fake.waitForShown((text) => text === "hello again Alpha");
  });

  it("an org-wide uninstall takes every workspace of the org along, as their events came", async () => {
    const removed: SlackRemoval[] = [];
    const model = new ScriptedModel([say("hello one"), say("hello two")]);
    harness = await startSlackHarness({ model, installs: { removed: async (removal) => void removed.push(removal) } });
    const { fake, baseUrl, store } = harness;
    await install(baseUrl, fake, GRID);
    for (const [team, answer] of [
      ["T0GRID1", "hello one"],
      ["T0GRID2", "hello two"],
    ] as const) {
      const asks = { team, enterprise: "E0GRID", orgInstall: true, botUserId: GRID.botUserId };
      await postEvent(
        harness.eventsUrl,
        mentionEvent({ text: "<@U0BOTG> hi", ts: `17001${team.at(-1)}0000.000100`, channel: `C${team}`, workspace: asks }),
      );
      await fake.waitForShown((text) => text === answer);
    }
    await until(async () => (await store.setMembers("slack:org-workspaces:E0GRID")).length === 2, "both workspaces noted");

    await postEvent(harness.eventsUrl, appUninstalledEvent({ team: "T0GRID1", enterprise: "E0GRID", orgInstall: true }));
    expect(removed).toEqual([
      { key: "E:E0GRID", id: "E0GRID", teams: expect.arrayContaining(["T0GRID1", "T0GRID2"]), reason: "app_uninstalled" },
    ]);
    expect(removed[0]!.teams).toHaveLength(2);
    expect(await installsOf(harness).list()).toEqual([]);
    expect(await store.setMembers("slack:org-workspaces:E0GRID")).toEqual([]);
  });

  it("tokens_revoked naming the bot removes the workspace like an uninstall", async () => {
    harness = await startSlackHarness({ model: new ScriptedModel([]), installs: {} });
    await install(harness.baseUrl, harness.fake, BETA);
    await postEvent(harness.eventsUrl, tokensRevokedEvent({ team: "T0BETA" }, { bot: [BETA.botUserId] }));
    expect(await installsOf(harness).list()).toEqual([]);
  });

  it("in Socket Mode too: the install pages are on the process's port, and an envelope from the workspace is answered with its token", async () => {
    harness = await startSlackHarness({ model: new ScriptedModel([say("hello over the socket")]), installs: {}, mode: "socket" });
    const { fake, baseUrl } = harness;
    expect((await install(baseUrl, fake, ALPHA)).status).toBe(200);
    const alphaAsks = { team: "T0ALPHA", botUserId: ALPHA.botUserId };
    const envelope = fake.sendEnvelope(
      "events_api",
      mentionEvent({ text: "<@U0BOTA> hi", ts: "1700400000.000100", channel: "C0ALPHA", workspace: alphaAsks }),
    );
    await fake.waitForAck(envelope);
    await fake.waitForShown((text) => text === "hello over the socket");
    expect(new Set(fake.calls.filter((call) => call.args.channel === "C0ALPHA").map((call) => call.workspace))).toEqual(
      new Set(["T:T0ALPHA"]),
    );
  });
});
