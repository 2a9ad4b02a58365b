// Installing the app in fake workspaces through the bot's real install pages, as a person's browser
// does it: the "Add to Slack" page (its state cookie), Slack's authorize step (the fake issues the
// code for the redirect URI the page asked for), then the redirect back with code and state.
import type { FakeSlack } from "./fake-slack.js";
import type { FakeWorkspace } from "./fake-slack-oauth.js";

export const ALPHA: FakeWorkspace = { team: { id: "T0ALPHA", name: "Alpha" }, botUserId: "U0BOTA", botId: "B0BOTA", installer: "U0ANNA" };
export const BETA: FakeWorkspace = { team: { id: "T0BETA", name: "Beta" }, botUserId: "U0BOTB", botId: "B0BOTB", installer: "U0BERT" };
/** An Enterprise Grid org that installs the app org-wide: every workspace of it shares the org's token. */
export const GRID: FakeWorkspace = {
  enterprise: { id: "E0GRID", name: "Grid Org" },
  orgInstall: true,
  botUserId: "U0BOTG",
  botId: "B0BOTG",
  installer: "U0GINA",
};

/** What the install page started: the authorize URL it links to and the browser's state cookie. */
export interface StartedInstall {
  readonly authorizeUrl: URL;
  readonly state: string;
  readonly cookie: string;
}

export async function startInstall(baseUrl: string): Promise<StartedInstall> {
  const page = await fetch(`${baseUrl}/slack/install`);
  if (page.status !== 200) throw new Error(`the install page answered ${page.status}`);
  const cookie = (page.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  const link = /href="([^"]+)"/.exec(await page.text())?.[1];
  if (!link) throw new Error("the install page has no link to Slack");
  const authorizeUrl = new URL(link.replaceAll("&amp;", "&"));
  return { authorizeUrl, state: authorizeUrl.searchParams.get("state") ?? "", cookie };
}

/** Slack sends the browser back with a code for `workspace`; `cookie` false: another browser. */
export function finishInstall(baseUrl: string, fake: FakeSlack, started: StartedInstall, workspace: FakeWorkspace, cookie = true) {
  const code = fake.issueCode(workspace, started.authorizeUrl.searchParams.get("redirect_uri") ?? undefined);
  const query = new URLSearchParams({ code, state: started.state });
  return fetch(`${baseUrl}/slack/oauth_redirect?${query}`, { headers: cookie ? { cookie: started.cookie } : {} });
}

export async function install(baseUrl: string, fake: FakeSlack, workspace: FakeWorkspace): Promise<Response> {
  return finishInstall(baseUrl, fake, await startInstall(baseUrl), workspace);
}
