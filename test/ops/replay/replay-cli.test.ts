// `npm run replay` beside a live bot process on the same SQLite file: it reads the runs the bot
// recorded, reports them the same under unchanged settings and changed under a lower
// AGENT_MAX_STEPS, takes no lock and writes nothing; the bot goes on answering meanwhile.
import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/logger.js";
import { openStore } from "../../../src/memory/keyv-store.js";
import { createRunRecordStore } from "../../../src/memory/run-records/record-store.js";
import { freePort } from "../../support/free-port.js";
import { startBot, type BotProcess } from "../../support/bot-child.js";
import { startFakeOpenAI, textReply, toolCallReply, type FakeOpenAI } from "../../support/fake-openai-server.js";
import { BOT_USER_ID, startFakeSlack, type FakeSlack } from "../../support/fake-slack.js";
import { mentionEvent, postEvent } from "../../support/fake-slack-requests.js";
import { temporaryFolder } from "../../support/temporary-folder.js";
import { until } from "../../support/until.js";

let slack: FakeSlack;
let model: FakeOpenAI;
let folder: Awaited<ReturnType<typeof temporaryFolder>>;
let bot: BotProcess;
let storeUrl: string;

function replay(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", "src/ops/replay/replay-cli.ts", ...args], {
      cwd: process.cwd(),
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", STORE_URL: storeUrl, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

const usage = { prompt: 100, completion: 10 };

beforeAll(async () => {
  slack = await startFakeSlack();
  model = await startFakeOpenAI();
  folder = await temporaryFolder();
  storeUrl = `sqlite://${folder.path}/bot.sqlite`;
  model.enqueue(
    textReply("Hello!", usage),
    toolCallReply([{ name: "calculator", args: { expression: "6*7" }, id: "c1" }], usage),
    textReply("It is 42.", usage),
  );
  bot = await startBot({ slackApiUrl: slack.apiUrl, openaiBaseUrl: model.baseUrl, storeUrl, port: await freePort() });
  await postEvent(bot.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> hi`, ts: "1700200000.000100" }));
  await slack.waitForShown((text) => text === "Hello!", 15_000);
  await postEvent(bot.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> what is 6*7?`, ts: "1700200001.000100" }));
  await slack.waitForShown((text) => text === "It is 42.", 15_000);
  const reader = await openStore(storeUrl, silentLogger, { readOnly: true });
  const records = createRunRecordStore(reader, { days: 30, max: 1_000 });
  await until(async () => (await records.list({ limit: 10 })).runs.length === 2, "the bot to record both runs", 10_000);
  await reader.close();
}, 60_000);

afterAll(async () => {
  bot.child.kill("SIGKILL");
  await bot.exited;
  await model.close();
  await slack.close();
  await folder.remove();
});

describe("npm run replay beside a live bot", () => {
  it("reproduces both runs with unchanged settings, and shows a steps trip under AGENT_MAX_STEPS=1", async () => {
    const same = await replay(["--since", "1h", "--json"]);
    expect(same.stderr).toBe("");
    expect(same.code).toBe(0);
    const report = JSON.parse(same.stdout) as { total: { runs: number; same: number }; runs: Array<{ changed: string[] }> };
    expect(report.total).toMatchObject({ runs: 2, same: 2 });

    const lower = await replay(["--since", "1h", "--set", "AGENT_MAX_STEPS=1"]);
    expect(lower.code).toBe(0);
    expect(lower.stdout).toMatch(/: answered → steps guard, steps 2 → 1, tokens 220 → 110/);
    expect(lower.stdout).toContain("2 runs: 1 would end the same, 1 differently");

    // The bot still owns its file and answers.
    model.enqueue(textReply("Still here.", usage));
    await postEvent(bot.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> still there?`, ts: "1700200002.000100" }));
    await slack.waitForShown((text) => text === "Still here.", 15_000);
    expect(bot.child.exitCode).toBeNull();
  }, 60_000);

  it("says in one line what is wrong with its arguments or the store", async () => {
    const badSet = await replay(["--since", "1h", "--set", "AGENT_MAX_STEPS=0"]);
    expect(badSet).toMatchObject({ code: 2, stdout: "" });
    expect(badSet.stderr).toBe('--set AGENT_MAX_STEPS: expects a whole number from 1 to 100 (got "0")\n');
    const noSince = await replay([]);
    expect(noSince.code).toBe(2);
    expect(noSince.stderr).toMatch(/^--since is required\nusage: npm run replay/);
    const missing = await replay(["--since", "1h"], { STORE_URL: `sqlite://${folder.path}/missing.sqlite` });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^Cannot read the store: .*cannot open the SQLite file .*missing\.sqlite for reading.*\n$/);
  }, 60_000);
});
