// No request can end the process: a real bot process (Slack's HTTP mode and the ops routes on
// one PORT) gets every case of the listener fuzz; after each it must still be running, answer
// its liveness route, and let Bolt answer a signed request. At the end it still answers a person.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../support/free-port.js";
import { startBot, type BotProcess } from "../support/bot-child.js";
import { startFakeOpenAI, textReply, type FakeOpenAI } from "../support/fake-openai-server.js";
import { BOT_USER_ID, startFakeSlack, type FakeSlack } from "../support/fake-slack.js";
import { mentionEvent, postEvent } from "../support/fake-slack-requests.js";
import { accepts, BOT_LISTENERS, fuzzCases } from "../support/listener-fuzz.js";
import { temporaryFolder } from "../support/temporary-folder.js";

let slack: FakeSlack;
let model: FakeOpenAI;
let folder: Awaited<ReturnType<typeof temporaryFolder>>;
let bot: BotProcess;
let port: number;

beforeAll(async () => {
  slack = await startFakeSlack();
  model = await startFakeOpenAI();
  folder = await temporaryFolder();
  port = await freePort();
  bot = await startBot({ slackApiUrl: slack.apiUrl, openaiBaseUrl: model.baseUrl, storeUrl: `sqlite://${folder.path}/bot.sqlite`, port });
}, 40_000);

afterAll(async () => {
  if (bot.child.exitCode === null && bot.child.signalCode === null) bot.child.kill("SIGKILL");
  await bot.exited;
  await model.close();
  await slack.close();
  await folder.remove();
});

async function expectAnswering(after: string): Promise<void> {
  const gone = bot.child.exitCode !== null || bot.child.signalCode !== null;
  if (gone)
    throw new Error(
      `the bot exited after "${after}" (code ${bot.child.exitCode}, signal ${bot.child.signalCode}):\n${bot.logs().slice(-1500)}`,
    );
  expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
  const verification = await postEvent(bot.eventsUrl, { type: "url_verification", token: "t", challenge: "still-here" });
  expect(verification).toEqual({ status: 200, text: JSON.stringify({ challenge: "still-here" }) });
}

describe("every listener on PORT under junk", () => {
  for (const fuzz of fuzzCases(BOT_LISTENERS)) {
    it(fuzz.name, async () => {
      const answer = await fuzz.send(port);
      expect({ answer, accepted: accepts(fuzz.expected, answer) }).toMatchObject({ accepted: true });
      await expectAnswering(fuzz.name);
    });
  }

  it("still answers a person afterwards, and logged no unhandled error", async () => {
    model.enqueue(textReply("still answering"));
    expect((await postEvent(bot.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> hello`, ts: "1700900000.000100" }))).status).toBe(200);
    await slack.waitForCall("chat.postMessage", (call) => call.args.text === "still answering", 15_000);
    expect(bot.logs()).not.toMatch(/unhandled|uncaught/i);
  });
});
