// Where the run explorer is, as the operator reads it at start: its URL with the real port (the
// log line in chat mode, a console line in console mode), and a warning when it shares PORT with
// Slack's public events endpoint. (The logs are JSON lines on standard error.)
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { useAppHarness } from "../../support/app-harness.js";
import { startFakeSlack, type FakeSlack } from "../../support/fake-slack.js";
import { SIGNING_SECRET } from "../../support/fake-slack-requests.js";
import { freePort } from "../../support/free-port.js";
import { spawnMain, type MainProcess } from "../../support/main-child.js";
import { temporaryFolder, type TemporaryFolder } from "../../support/temporary-folder.js";
import { until } from "../../support/until.js";

const TOKEN = "explorer-token-0123456789";

describe("the explorer's address at start, in Slack's HTTP mode", () => {
  let slack: FakeSlack;
  let folder: TemporaryFolder;
  let bot: MainProcess | undefined;
  beforeEach(async () => {
    slack = await startFakeSlack();
    folder = await temporaryFolder();
  });
  afterEach(async () => {
    if (bot && bot.child.exitCode === null) {
      bot.child.kill("SIGTERM");
      await bot.exited;
    }
    bot = undefined;
    await slack.close();
    await folder.remove();
  });

  async function start(env: Record<string, string>): Promise<Array<Record<string, unknown>>> {
    bot = spawnMain({
      SLACK_BOT_TOKEN: "xoxb-test",
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_API_URL: slack.apiUrl,
      OPENAI_API_KEY: "demo",
      STORE_URL: `sqlite://${join(folder.path, "bot.sqlite")}`,
      LOG_LEVEL: "info",
      LOG_FORMAT: "json",
      ADMIN_TOKEN: TOKEN,
      ...env,
    });
    const running = bot;
    await until(() => running.stderr().includes('"msg":"started"'), `the start; got:\n${running.stderr()}`, 20_000);
    return running
      .stderr()
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  }

  it("on PORT: logs the URL with the real port, and warns in one line that it is as public as Slack's events", async () => {
    const port = await freePort();
    const lines = await start({ PORT: String(port) });
    expect(lines.map((line) => line.msg)).toContain(`the run explorer is served at http://localhost:${port}/admin`);
    const warnings = lines.filter((line) => line.level === 40 && String(line.msg).includes("run explorer"));
    expect(warnings.map((line) => line.msg)).toEqual([
      `the run explorer shares PORT ${port} with Slack's public events endpoint, so it answers wherever Slack's events reach; set ADMIN_PORT to serve it on a listener of its own (on ADMIN_HOST, 127.0.0.1 by default)`,
    ]);
  });

  it("with ADMIN_PORT: no warning, and the URL logged is the listener's own, which answers", async () => {
    const [port, adminPort] = [await freePort(), await freePort()];
    const lines = await start({ PORT: String(port), ADMIN_PORT: String(adminPort) });
    const url = `http://127.0.0.1:${adminPort}/admin`;
    expect(lines.map((line) => line.msg)).toContain(`the run explorer is served at ${url}`);
    expect(lines.filter((line) => line.level === 40 && String(line.msg).includes("run explorer"))).toEqual([]);
    expect((await fetch(url, { redirect: "manual" })).status).toBeLessThan(500);
  });
});

describe("the explorer's address at start, in console mode", () => {
  const apps = useAppHarness();

  it("prints the URL with the port it listens on (PORT=0 picks one)", async () => {
    const term = await apps.startConsole({ ADMIN_TOKEN: TOKEN, PORT: "0" });
    const port = term.app.adminPort;
    expect(port).toBeGreaterThan(0);
    await until(() => term.shown().includes(`Run explorer: http://127.0.0.1:${port}/admin (sign in with ADMIN_TOKEN)`), "the line");
  });
});
