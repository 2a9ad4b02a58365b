// The real product (startApp, Slack in HTTP mode against the fake Slack API, the model behind the
// fake OpenAI server) with the run explorer on its ops port, for the explorer's HTTP and browser
// tests: mention the bot and wait for its answer, sign in, and call /admin as a browser would.
import { join } from "node:path";
import { startApp, type RunningApp } from "../../src/app.js";
import { startFakeOpenAI, type FakeOpenAI, type FakeResponse, type RecordedRequest } from "./fake-openai-server.js";
import { BOT_USER_ID, startFakeSlack, type FakeSlack } from "./fake-slack.js";
import { mentionEvent, postEvent, SIGNING_SECRET } from "./fake-slack-requests.js";
import { temporaryFolder } from "./temporary-folder.js";
import { until } from "./until.js";

export const ADMIN_TOKEN = "admin-token-for-tests-0123456789";

/** The product started against a fake Slack and the fake OpenAI server, its SQLite store in a folder of its own. */
export interface SlackProduct {
  readonly app: RunningApp;
  readonly slack: FakeSlack;
  readonly model: FakeOpenAI;
  /** http://127.0.0.1:PORT */
  readonly base: string;
  readonly folder: string;
  /** The store's SQLite file. */
  readonly path: string;
  close(): Promise<void>;
}

/**
 * startApp in HTTP mode against a new fake Slack and fake OpenAI server (`respond` answers each model request: the
 * app's steps, summaries and fact extraction alike), with the explorer on its port; `env` names the Slack app
 * (SLACK_BOT_TOKEN, or the install variables) and anything else.
 */
export async function startSlackProduct(
  respond: (request: RecordedRequest) => FakeResponse,
  env: Record<string, string>,
): Promise<SlackProduct> {
  const slack = await startFakeSlack();
  const model = await startFakeOpenAI();
  const folder = await temporaryFolder();
  model.enqueue(...Array.from({ length: 500 }, () => respond));
  const path = join(folder.path, "bot.sqlite");
  const close = async () => {
    await model.close();
    await slack.close();
    await folder.remove();
  };
  const result = await startApp({
    STORE_URL: `sqlite://${path}`,
    LOG_LEVEL: "silent",
    PORT: "0",
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: slack.apiUrl,
    OPENAI_API_KEY: "sk-test",
    OPENAI_BASE_URL: model.baseUrl,
    OPENAI_MAX_RETRIES: "0",
    ADMIN_TOKEN,
    ...env,
  });
  if (result.kind !== "started") {
    await close();
    throw new Error(result.message);
  }
  const { app } = result;
  return {
    app,
    slack,
    model,
    base: `http://127.0.0.1:${app.port}`,
    folder: folder.path,
    path,
    async close() {
      await app.stop();
      await close();
    },
  };
}

export interface ExplorerProduct extends SlackProduct {
  /** Mentions the bot in a thread of its own (or `thread`) and waits for an answer that contains `expected`. */
  ask(text: string, expected: string, options?: { readonly ts?: string; readonly thread?: string; readonly user?: string }): Promise<void>;
}

let tsCounter = 0;

/** `respond` answers each model request (the app's steps, summaries and fact extraction alike). */
export async function startExplorerProduct(
  respond: (request: RecordedRequest) => FakeResponse,
  env: Record<string, string> = {},
): Promise<ExplorerProduct> {
  const product = await startSlackProduct(respond, { SLACK_BOT_TOKEN: "xoxb-test", MEMORY_EXTRACT_FACTS: "false", ...env });
  const { slack, base } = product;
  return {
    ...product,
    async ask(text, expected, options = {}) {
      const ts = options.ts ?? `17003${String(++tsCounter).padStart(5, "0")}.000100`;
      const answers = () => slack.shown((text) => text.includes(expected)).length;
      const before = answers();
      await postEvent(
        `${base}/slack/events`,
        mentionEvent({
          text: `<@${BOT_USER_ID}> ${text}`,
          ts,
          ...(options.thread ? { thread_ts: options.thread } : {}),
          ...(options.user ? { user: options.user } : {}),
        }),
      );
      // A new answer: an earlier one with the same words does not count.
      await until(() => answers() > before, `an answer containing "${expected}"`, 15_000);
    },
  };
}

/** Signs in with the form and returns the session cookie and the CSRF token of the runs page. */
export async function signIn(base: string): Promise<{ readonly cookie: string; readonly csrf: string }> {
  const response = await fetch(`${base}/admin/login`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ token: ADMIN_TOKEN }),
    redirect: "manual",
  });
  if (response.status !== 303) throw new Error(`sign-in answered ${response.status}`);
  const cookie = (response.headers.get("set-cookie") ?? "").split(";")[0]!;
  const runs = await (await fetch(`${base}/admin/`, { headers: { cookie } })).text();
  const csrf = /name="csrf" value="([^"]+)"/.exec(runs)?.[1];
  if (!csrf) throw new Error("the runs page has no CSRF token");
  return { cookie, csrf };
}

/** Waits until the explorer's API lists `count` runs (records are written after the answers). */
export async function untilRuns(base: string, count: number): Promise<void> {
  await until(
    async () => {
      const response = await fetch(`${base}/admin/api/runs?limit=200`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      return ((await response.json()) as { runs: unknown[] }).runs.length >= count;
    },
    `${count} recorded runs`,
    10_000,
  );
}
