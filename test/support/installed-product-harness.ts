// The real product (startApp) as an app installed in several Slack workspaces: the install pages
// and Slack's events on its port against the fake Slack (HTTP mode), the model behind the fake
// OpenAI server answering each request with `respond`, the run explorer on the same port, and
// its SQLite store in a folder of its own, read back row by row to find what it still keeps.
import sqlite3 from "sqlite3";
import type { FakeResponse, RecordedRequest } from "./fake-openai-server.js";
import { CLIENT_ID, CLIENT_SECRET, type FakeWorkspace } from "./fake-slack-oauth.js";
import { mentionEvent, postEvent } from "./fake-slack-requests.js";
import { ADMIN_TOKEN, type SlackProduct, startSlackProduct } from "./explorer-harness.js";
import { until } from "./until.js";

/** `base`: the install pages, Slack's events and the explorer. */
export interface InstalledProduct extends SlackProduct {
  readonly storeUrl: string;
  /**
   * A mention of the bot by `user` in the workspace's channel (`C` and the team id without its `T`), in a thread of its
   * own (or `thread`); resolves with its ts once the fake Slack shows a message containing `shows` (undefined: once Slack
   * has its answer, for an answer only one person sees).
   */
  mention(workspace: FakeWorkspace, user: string, text: string, shows: string | undefined, thread?: string): Promise<string>;
  /** The explorer's JSON API, as an admin with ADMIN_TOKEN calls it. */
  api(path: string): Promise<unknown>;
  /** Every row of the store (values, set members, index members, counters) that names `text`, as text. */
  rowsNaming(text: string): Promise<string[]>;
}

/** The channel the tests mention the bot in, in a workspace: `T0ALPHA` → `C0ALPHA`. */
export const channelOf = (workspace: FakeWorkspace) => `C${workspace.team!.id.slice(1)}`;

let ts = 0;

export async function startInstalledProduct(
  respond: (request: RecordedRequest) => FakeResponse,
  env: Record<string, string> = {},
): Promise<InstalledProduct> {
  const product = await startSlackProduct(respond, {
    SLACK_CLIENT_ID: CLIENT_ID,
    SLACK_CLIENT_SECRET: CLIENT_SECRET,
    PUBLIC_URL: "https://bot.example.test/",
    ...env,
  });
  const { slack, base, path } = product;
  return {
    ...product,
    storeUrl: `sqlite://${path}`,
    async mention(workspace, user, text, shows, thread) {
      const team = workspace.team!.id;
      const channel = channelOf(workspace);
      const before = shows === undefined ? 0 : slack.shown((shown) => shown.includes(shows)).length;
      const at = `17005${String(++ts).padStart(5, "0")}.000100`;
      await postEvent(
        `${base}/slack/events`,
        mentionEvent({
          text: `<@${workspace.botUserId}> ${text}`,
          ts: at,
          ...(thread ? { thread_ts: thread } : {}),
          channel,
          user,
          workspace: { team, botUserId: workspace.botUserId },
        }),
      );
      if (shows !== undefined)
        await until(() => slack.shown((shown) => shown.includes(shows)).length > before, `"${shows}" in ${channel}`, 15_000);
      return at;
    },
    async api(path) {
      const response = await fetch(`${base}/admin/api/${path}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      if (response.status !== 200) throw new Error(`/admin/api/${path} answered ${response.status}: ${await response.text()}`);
      return response.json();
    },
    rowsNaming: (text) => storeRowsNaming(path, text),
  };
}

/** Every row of every table of the SQLite file that names `text`. */
export async function storeRowsNaming(path: string, text: string): Promise<string[]> {
  const database = new sqlite3.Database(path, sqlite3.OPEN_READONLY);
  const all = (sql: string) =>
    new Promise<Array<Record<string, unknown>>>((resolve, reject) =>
      database.all(sql, (error, rows) => (error ? reject(error) : resolve(rows as Array<Record<string, unknown>>))),
    );
  try {
    const tables = (await all("SELECT name FROM sqlite_master WHERE type = 'table'")).map((row) => String(row.name));
    const rows: string[] = [];
    for (const table of tables)
      for (const row of await all(`SELECT * FROM ${table}`))
        if (JSON.stringify(row).includes(text)) rows.push(`${table}: ${JSON.stringify(row)}`);
    return rows;
  } finally {
    database.close();
  }
}
