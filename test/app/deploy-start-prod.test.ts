// Deploys reach the bot: `npm run start:prod` (the documented deploy command, from a fresh
// production build) leaves no shell between npm and node, so a process manager's SIGTERM, to
// npm's pid alone or to its process group, reaches the bot: it stops gracefully (no orphan
// left serving), and after the restart every acknowledged message is answered exactly once. The
// build's file readers run as built JavaScript (no tsx): a PDF and an image are read, a bomb refused.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { freePort } from "../support/free-port.js";
import { isRunning, killGroup, parentPid, startBot, storeOwnerPid, type BotProcess } from "../support/bot-child.js";
import { startFakeOpenAI, textReply, toolCallReply, type FakeOpenAI, type RecordedRequest } from "../support/fake-openai-server.js";
import { BOT_USER_ID, startFakeSlack, type FakeSlack } from "../support/fake-slack.js";
import { mentionEvent, postEvent } from "../support/fake-slack-requests.js";
import { SLACK_BOT_TOKEN } from "../support/fake-slack-files.js";
import { pdf, png } from "../support/sample-files.js";
import { flateBombPdf } from "../support/hostile-files.js";
import { temporaryFolder } from "../support/temporary-folder.js";
import { until } from "../support/until.js";
import { buildForProd, type ProdBuild } from "../support/prod-build.js";

let build: ProdBuild;
let slack: FakeSlack;
let model: FakeOpenAI;
let folder: Awaited<ReturnType<typeof temporaryFolder>>;
const started: BotProcess[] = [];
const botPids: number[] = [];

beforeAll(async () => {
  build = await buildForProd();
}, 120_000);
afterAll(() => build.remove());

beforeEach(async () => {
  slack = await startFakeSlack();
  model = await startFakeOpenAI();
  folder = await temporaryFolder();
});
afterEach(async () => {
  for (const bot of started.splice(0)) killGroup(bot.child);
  // A bot orphaned by its npm is in no group of ours any more: it is ended by its own pid.
  for (const pid of botPids.splice(0)) if (isRunning(pid)) process.kill(pid, "SIGKILL");
  await model.close();
  await slack.close();
  await folder.remove();
});

const userText = (request: RecordedRequest) =>
  (request.body.messages as Array<{ role: string; content: string }>).filter((message) => message.role === "user").pop()!.content;
const toolResults = (request: RecordedRequest) =>
  (request.body.messages as Array<{ role: string }>).filter((message) => message.role === "tool").length;

/** Each run: a calculator step the model takes a second to ask for, then the answer naming its question. */
const slowRun = (request: RecordedRequest) =>
  toolResults(request) === 0
    ? { ...toolCallReply([{ name: "calculator", args: { expression: "6*7" }, id: "c1" }]), delayMs: 1_000 }
    : textReply(`answer for ${userText(request).trim()}`);

async function startProd(storeUrl: string, port: number, env: Record<string, string> = {}): Promise<{ bot: BotProcess; botPid: number }> {
  const bot = await startBot({
    slackApiUrl: slack.apiUrl,
    openaiBaseUrl: model.baseUrl,
    storeUrl,
    port,
    env: { MAX_CONCURRENT_RUNS: "5", ...env },
    prodPackage: build.path,
  });
  started.push(bot);
  const botPid = storeOwnerPid(`${folder.path}/bot.sqlite`)!;
  botPids.push(botPid);
  return { bot, botPid };
}

describe("npm run start:prod", () => {
  for (const target of ["npm's pid alone", "npm's process group"] as const) {
    it(`SIGTERM to ${target}: the bot stops gracefully, and after the restart all 20 messages are answered exactly once`, async () => {
      const storeUrl = `sqlite://${folder.path}/bot.sqlite`;
      const port = await freePort();
      model.enqueue(...Array.from({ length: 80 }, () => slowRun));
      const questions = Array.from({ length: 20 }, (_, index) => `deploy ${index + 1}`);
      const answers = () =>
        questions.map((question) => slack.callsTo("chat.postMessage").filter((call) => call.args.text === `answer for ${question}`).length);

      const first = await startProd(storeUrl, port);
      // No shell stays between npm and the bot: npm forwards the signal to the bot itself.
      expect(parentPid(first.botPid)).toBe(first.bot.child.pid);
      for (const [index, question] of questions.entries()) {
        const ts = `1700800000.${String(index).padStart(6, "0")}`;
        expect((await postEvent(first.bot.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> ${question}`, ts }))).status).toBe(200);
      }
      await model.waitForRequests(5, 15_000);
      process.kill(target === "npm's pid alone" ? (first.bot.child.pid as number) : -(first.bot.child.pid as number), "SIGTERM");
      // Within main.ts's 10 s backstop, with room for a loaded machine.
      await until(() => !isRunning(first.botPid), `the bot (pid ${first.botPid}) to exit after the SIGTERM`, 15_000, 50);
      expect(first.bot.logs()).toContain("shutting down");
      expect(answers().filter((count) => count > 0).length).toBeLessThan(20);

      const second = await startProd(storeUrl, port);
      await until(
        () => answers().every((count) => count >= 1),
        `all 20 answers; got ${answers().filter(Boolean).length}\n${second.bot.logs().slice(-3000)}`,
        60_000,
        100,
      );
      process.kill(second.bot.child.pid as number, "SIGTERM");
      await until(() => !isRunning(second.botPid), "the restarted bot to exit", 15_000, 50);
      expect(answers()).toEqual(questions.map(() => 1));
    }, 150_000);
  }

  it("reads files in built reader processes: a PDF's text and an image reach the model, a bomb is refused", async () => {
    const port = await freePort();
    model.enqueue(textReply("Read them."));
    const { bot } = await startProd(`sqlite://${folder.path}/bot.sqlite`, port, { SLACK_BOT_TOKEN, OPENAI_MODEL: "gpt-4o" });
    const files = [
      slack.addFile({ name: "spec.pdf", mimetype: "application/pdf", data: await pdf(2) }),
      slack.addFile({ name: "shot.png", mimetype: "image/png", data: await png(64, 48) }),
      slack.addFile({ name: "bomb.pdf", mimetype: "application/pdf", data: flateBombPdf(2_048, "one stream") }),
    ];
    await postEvent(bot.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> what are these?`, ts: "1700900000.000100", files }));
    await slack
      .waitForCall("chat.postMessage", (call) => call.args.text === "Read them.", 60_000)
      .catch((error: Error) => {
        throw new Error(`${error.message}\n${bot.logs()}`);
      });
    const seen = JSON.stringify(model.requests[0]!.body.messages);
    expect(seen).toContain("Page 2 of the spec");
    expect(seen).toContain("data:image/png;base64,");
    expect(seen).toContain("it expands to more than 100.0 MB (FILE_MAX_EXPANDED_BYTES)");
  }, 120_000);
});
