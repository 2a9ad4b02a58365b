// A Slack workspace that uninstalls the app, with the product as startApp wires it (installs on its
// port, the fake Slack, the model behind the fake OpenAI server): its paused run ends shown nowhere,
// and everything the store held of it (history, facts, run records, approvals, audit entries but
// the one line of the removal, people's connections, files) is gone, found nowhere in the SQLite
// file; the other workspace keeps all of its own, and a reinstall starts clean.
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import sqlite3 from "sqlite3";
import { startApp, type RunningApp } from "../../src/app.js";
import { openStore } from "../../src/memory/keyv-store.js";
import { silentLogger } from "../../src/logger.js";
import { createConnectionStore } from "../../src/tools/mcp/auth/connection-store.js";
import { createSealedBox } from "../../src/tools/mcp/auth/sealed-box.js";
import { createAuditLog } from "../../src/governance/audit-log.js";
import { startFakeOpenAI, textReply, toolCallReply, type FakeOpenAI, type RecordedRequest } from "../support/fake-openai-server.js";
import { startFakeSlack, type FakeSlack } from "../support/fake-slack.js";
import { CLIENT_ID, CLIENT_SECRET, type FakeWorkspace } from "../support/fake-slack-oauth.js";
import { appUninstalledEvent, mentionEvent, postEvent, SIGNING_SECRET } from "../support/fake-slack-requests.js";
import { ALPHA, BETA, install } from "../support/slack-installs.js";
import { temporaryFolder, type TemporaryFolder } from "../support/temporary-folder.js";
import { until } from "../support/until.js";

interface Bot {
  readonly app: RunningApp;
  readonly base: string;
  readonly storeUrl: string;
  readonly path: string;
}

let slack: FakeSlack;
let model: FakeOpenAI;
let folder: TemporaryFolder;
let bot: Bot | undefined;

/** What each person tells the bot, and what the model makes of it: a name to remember, a note to post (a write, paused). */
function respond(request: RecordedRequest) {
  const text = JSON.stringify(request.body.messages);
  if (request.body.response_format?.type === "json_object")
    return textReply(JSON.stringify({ facts: text.includes("Anna") ? ["The person is called Anna."] : ["The person is called Bert."] }));
  const question = JSON.stringify(request.body.messages.filter((message: { role: string }) => message.role === "user").at(-1));
  if (question.includes("post a note"))
    return toolCallReply([{ name: "post_message", args: { channel: text.includes("C0ALPHA") ? "C0ALPHA" : "C0BETA", text: "hello all" } }]);
  return textReply(text.includes("Anna") && !text.includes("called Anna") ? "Nice to meet you." : "Noted.");
}

async function startBot(): Promise<Bot> {
  const path = join(folder.path, "bot.sqlite");
  const result = await startApp({
    STORE_URL: `sqlite://${path}`,
    LOG_LEVEL: "silent",
    PORT: "0",
    SLACK_CLIENT_ID: CLIENT_ID,
    SLACK_CLIENT_SECRET: CLIENT_SECRET,
    PUBLIC_URL: "https://bot.example.test/",
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: slack.apiUrl,
    OPENAI_API_KEY: "sk-test",
    OPENAI_BASE_URL: model.baseUrl,
    OPENAI_MAX_RETRIES: "0",
    MEMORY_EXTRACT_FACTS: "true",
  });
  if (result.kind !== "started") throw new Error(result.message);
  return { app: result.app, base: `http://127.0.0.1:${result.app.port}`, storeUrl: `sqlite://${path}`, path };
}

let ts = 0;
/** A mention in the workspace's channel, in a thread of its own (or `thread`); resolves once it is answered or its card shows. */
async function mention(running: Bot, workspace: FakeWorkspace, user: string, text: string, shows: string, thread?: string) {
  const team = workspace.team!.id;
  const channel = team === "T0ALPHA" ? "C0ALPHA" : "C0BETA";
  const before = slack.shown((shown) => shown.includes(shows)).length;
  const at = `17005${String(++ts).padStart(5, "0")}.000100`;
  await postEvent(
    `${running.base}/slack/events`,
    mentionEvent({
      text: `<@${workspace.botUserId}> ${text}`,
      ts: at,
      ...(thread ? { thread_ts: thread } : {}),
      channel,
      user,
      workspace: { team, botUserId: workspace.botUserId },
    }),
  );
  await until(() => slack.shown((shown) => shown.includes(shows)).length > before, `"${shows}" in ${channel}`, 15_000);
  return at;
}

/** Every row of the SQLite file (values, set members, index members, counters) that names `id`. */
async function rowsNaming(path: string, id: string): Promise<string[]> {
  const database = new sqlite3.Database(path, sqlite3.OPEN_READONLY);
  const all = (sql: string) =>
    new Promise<Array<Record<string, unknown>>>((resolve, reject) =>
      database.all(sql, (error, rows) => (error ? reject(error) : resolve(rows as never))),
    );
  try {
    const tables = (await all("SELECT name FROM sqlite_master WHERE type = 'table'")).map((row) => String(row.name));
    const rows: string[] = [];
    for (const table of tables)
      for (const row of await all(`SELECT * FROM ${table}`))
        if (JSON.stringify(row).includes(id)) rows.push(`${table}: ${JSON.stringify(row)}`);
    return rows;
  } finally {
    database.close();
  }
}

beforeEach(async () => {
  slack = await startFakeSlack();
  model = await startFakeOpenAI();
  model.enqueue(...Array.from({ length: 200 }, () => respond));
  folder = await temporaryFolder();
});

afterEach(async () => {
  await bot?.app.stop();
  bot = undefined;
  await model.close();
  await slack.close();
  await folder.remove();
});

describe("a workspace that uninstalls the app", () => {
  it("has its paused run ended and all its data deleted; the other workspace keeps its own; a reinstall starts clean", async () => {
    bot = await startBot();
    const running = bot;
    expect((await install(running.base, slack, ALPHA)).status).toBe(200);
    expect((await install(running.base, slack, BETA)).status).toBe(200);

    // Each workspace: a name remembered (history, a fact, a run record), a write waiting for approval (its card, the audit).
    const alphaThread = await mention(running, ALPHA, "U0ANNA", "I am Anna", "Nice to meet you.");
    await mention(running, BETA, "U0BERT", "I am Bert", "Noted.");
    await mention(running, ALPHA, "U0ANNA", "post a note", "wants to run");
    await mention(running, BETA, "U0BERT", "post a note", "wants to run");
    const side = await openStore(running.storeUrl, silentLogger);
    try {
      // A person's connection to an MCP server in each workspace.
      const connections = createConnectionStore(
        side,
        createSealedBox(async () => Buffer.alloc(32, 3)),
        Date.now,
      );
      await connections.saveTokens({ surface: "slack", workspace: "T0ALPHA", person: "U0ANNA" }, "notes", {
        access_token: "alpha-access",
        token_type: "bearer",
      });
      await connections.saveTokens({ surface: "slack", workspace: "T0BETA", person: "U0BERT" }, "notes", {
        access_token: "beta-access",
        token_type: "bearer",
      });
      await until(async () => (await rowsNaming(running.path, "The person is called Anna.")).length > 0, "Anna's fact");
      await until(async () => (await rowsNaming(running.path, "The person is called Bert.")).length > 0, "Bert's fact");
      await until(
        async () => (await createAuditLog(side).list({})).filter((entry) => entry.kind === "approval_requested").length === 2,
        "both approvals audited",
      );
      const betaBefore = await rowsNaming(running.path, "T0BETA");

      const callsBefore = slack.calls.length;
      expect((await postEvent(`${running.base}/slack/events`, appUninstalledEvent({ team: "T0ALPHA" }))).status).toBe(200);
      await until(async () => (await side.setMembers("workspace:erasures")).length === 0, "the erasure carried out", 10_000);

      // Nothing of Alpha is left but the one line of its removal; nothing was posted to it on the way.
      const left = [...(await rowsNaming(running.path, "T0ALPHA")), ...(await rowsNaming(running.path, "U0ANNA"))];
      const removals = left.filter((row) => row.includes("workspace_removed"));
      expect(removals).toHaveLength(1);
      expect(left.filter((row) => !row.includes("workspace_removed"))).toEqual([]);
      expect(await rowsNaming(running.path, "C0ALPHA")).toEqual([]);
      expect(await rowsNaming(running.path, "called Anna")).toEqual([]);
      expect(slack.calls.slice(callsBefore).filter((call) => call.workspace === "T:T0ALPHA")).toEqual([]);
      // Beta's data is all there.
      expect(await rowsNaming(running.path, "T0BETA")).toEqual(betaBefore);
      expect(await connections.servers({ surface: "slack", workspace: "T0BETA", person: "U0BERT" })).toEqual(["notes"]);
      expect((await createAuditLog(side).list({})).map((entry) => entry.kind).sort()).toEqual(["approval_requested", "workspace_removed"]);
    } finally {
      await side.close();
    }

    // Installed again, the same thread starts from nothing: no earlier turn, no fact.
    expect((await install(running.base, slack, ALPHA)).status).toBe(200);
    const asked = model.requests.length;
    await mention(running, ALPHA, "U0ANNA", "who am I?", "Noted.", alphaThread);
    const request = JSON.stringify(model.requests.slice(asked).find((entry) => entry.body.response_format === undefined)?.body.messages);
    expect(request).toContain("who am I?");
    expect(request).not.toContain("Anna");
  });
});
