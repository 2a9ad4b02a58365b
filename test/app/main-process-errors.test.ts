// What main.ts does with an error nothing else handled, in a real bot process: a promise
// rejection is logged with its error and the process goes on answering; an uncaught exception
// is logged the same way and the process stops gracefully (its store released) with exit code 1.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { freePort } from "../support/free-port.js";
import { startBot, storeOwnerPid, type BotProcess } from "../support/bot-child.js";
import { startFakeOpenAI, textReply, type FakeOpenAI } from "../support/fake-openai-server.js";
import { BOT_USER_ID, startFakeSlack, type FakeSlack } from "../support/fake-slack.js";
import { mentionEvent, postEvent } from "../support/fake-slack-requests.js";
import { temporaryFolder } from "../support/temporary-folder.js";
import { until } from "../support/until.js";

let slack: FakeSlack;
let model: FakeOpenAI;
let folder: Awaited<ReturnType<typeof temporaryFolder>>;
let bot: BotProcess | undefined;

beforeEach(async () => {
  slack = await startFakeSlack();
  model = await startFakeOpenAI();
  folder = await temporaryFolder();
});
afterEach(async () => {
  if (bot && bot.child.exitCode === null && bot.child.signalCode === null) bot.child.kill("SIGKILL");
  await bot?.exited;
  bot = undefined;
  await model.close();
  await slack.close();
  await folder.remove();
});

async function botWithFault(fault: "rejection" | "exception"): Promise<BotProcess> {
  bot = await startBot({
    slackApiUrl: slack.apiUrl,
    openaiBaseUrl: model.baseUrl,
    storeUrl: `sqlite://${folder.path}/bot.sqlite`,
    port: await freePort(),
    nodeArgs: ["--import", "./test/support/process-faults.mjs"],
    env: { FAULT: fault },
  });
  return bot;
}

/** The bot's JSON log line whose message contains `text`. */
function logLine(process: BotProcess, text: string): Record<string, unknown> | undefined {
  const line = process
    .logs()
    .split("\n")
    .find((entry) => entry.startsWith("{") && entry.includes(text));
  return line ? (JSON.parse(line) as Record<string, unknown>) : undefined;
}

describe("errors nothing else handled", () => {
  it("a promise rejection is logged with its error and stack, and the bot goes on answering", async () => {
    const running = await botWithFault("rejection");
    running.child.kill("SIGUSR2");
    await until(() => logLine(running, "unhandled promise rejection") !== undefined, "the rejection's log line");
    expect(logLine(running, "unhandled promise rejection")).toMatchObject({
      level: 50,
      origin: "unhandledRejection",
      err: { message: "injected rejection", stack: expect.stringContaining("process-faults.mjs") },
    });
    model.enqueue(textReply("still here"));
    expect((await postEvent(running.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> hi`, ts: "1700950000.000100" }))).status).toBe(200);
    await slack.waitForCall("chat.postMessage", (call) => call.args.text === "still here", 15_000);
    expect(running.child.exitCode).toBeNull();
  }, 60_000);

  it("an uncaught exception is logged with its error and stack, and the bot stops gracefully with exit code 1", async () => {
    const running = await botWithFault("exception");
    running.child.kill("SIGUSR2");
    const exit = await running.exited;
    expect(exit.code).toBe(1);
    expect(running.logs()).not.toContain("Shutdown took longer");
    expect(logLine(running, "uncaught exception")).toMatchObject({
      level: 60,
      origin: "uncaughtException",
      err: { message: "injected exception", stack: expect.stringContaining("process-faults.mjs") },
    });
    // The graceful stop ran to its end: the store was closed and its owner lock released.
    expect(storeOwnerPid(`${folder.path}/bot.sqlite`)).toBeUndefined();
  }, 60_000);
});
