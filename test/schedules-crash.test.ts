// Scheduled slots through real bot processes (Slack in HTTP mode, the model behind a fake
// OpenAI server, the SQLite default): kill -9 during a slot's run, SIGTERM right at a slot's
// time, then a start on the same store; each slot is answered exactly once. The schedules are
// written into the store before the bot starts, as an earlier process would have left them.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { silentLogger } from "../src/logger.js";
import { openStore } from "../src/memory/keyv-store.js";
import { newScheduleId, type ScheduleRecord } from "../src/runs/schedules/schedule-record.js";
import { createScheduleStore } from "../src/runs/schedules/schedule-store.js";
import { freePort, startBot, type BotProcess } from "./support/bot-process.js";
import { startFakeOpenAI, textReply, type FakeOpenAI, type RecordedRequest } from "./support/fake-openai-server.js";
import { startFakeSlack, type FakeSlack } from "./support/fake-slack.js";
import { TEAM_ID } from "./support/fake-slack-types.js";
import { temporaryFolder, until } from "./support/memory-test-kit.js";

let slack: FakeSlack;
let model: FakeOpenAI;
let folder: Awaited<ReturnType<typeof temporaryFolder>>;
const bots: BotProcess[] = [];

beforeEach(async () => {
  slack = await startFakeSlack();
  model = await startFakeOpenAI();
  folder = await temporaryFolder();
});
afterEach(async () => {
  for (const bot of bots.splice(0)) if (bot.child.exitCode === null && bot.child.signalCode === null) bot.child.kill("SIGKILL");
  await model.close();
  await slack.close();
  await folder.remove();
});

const THREAD = "1700400000.000100";

/** A one-shot schedule of U0ALICE in #general, due at `at`, written where the bot will find it. */
async function seedOneShot(storeUrl: string, at: number, what: string): Promise<ScheduleRecord> {
  const record: ScheduleRecord = {
    version: 1,
    id: newScheduleId(),
    owner: { id: "U0ALICE" },
    origin: {
      surface: "slack",
      conversationKey: `slack:${TEAM_ID}:C0GENERAL:${THREAD}`,
      requester: { id: "U0ALICE" },
      place: { team: TEAM_ID, channel: "C0GENERAL", thread_ts: THREAD, reply_thread_ts: THREAD },
    },
    thread: "per_slot",
    what,
    when: { kind: "once", at, timeZone: "UTC", phrase: "in 1 minute" },
    state: "active",
    failureStreak: 0,
    skippedSlots: 0,
    createdAt: at - 60_000,
    changedAt: at - 60_000,
    createdVia: "command",
    nextSlot: at,
  };
  const store = await openStore(storeUrl, silentLogger);
  try {
    await createScheduleStore(store).create(record);
  } finally {
    await store.close();
  }
  return record;
}

async function bot(storeUrl: string, port: number): Promise<BotProcess> {
  const started = await startBot({ slackApiUrl: slack.apiUrl, openaiBaseUrl: model.baseUrl, storeUrl, port });
  bots.push(started);
  return started;
}

const isSlotRun = (request: RecordedRequest, what: string) => JSON.stringify(request.body.messages).includes(what);
const posted = (text: string) => slack.callsTo("chat.postMessage").filter((call) => call.args.text === text).length;

describe("a slot's run across a crash and a deploy", () => {
  it("kill -9 during the slot's run: the next start resumes it and answers once; the slot is not fired again", async () => {
    const storeUrl = `sqlite://${folder.path}/bot.sqlite`;
    const port = await freePort();
    const what = "check that the deploy is green";
    await seedOneShot(storeUrl, Date.now() + 1_000, what);
    let hungOnce = false;
    model.enqueue(
      ...Array.from({ length: 5 }, () => (request: RecordedRequest) => {
        if (!isSlotRun(request, what)) return textReply("unexpected");
        if (!hungOnce) {
          hungOnce = true;
          return { hang: true as const };
        }
        return textReply("The deploy is green.");
      }),
    );
    const first = await bot(storeUrl, port);
    await model.waitForRequests(1, 20_000);
    first.child.kill("SIGKILL");
    await first.exited;
    expect(posted("The deploy is green.")).toBe(0);

    const second = await bot(storeUrl, port);
    await slack
      .waitForCall("chat.postMessage", (call) => call.args.text === "The deploy is green.", 20_000)
      .catch((error: Error) => {
        throw new Error(`${error.message}\nfirst:\n${first.logs()}\nsecond:\n${second.logs()}`);
      });
    second.child.kill("SIGTERM");
    await second.exited;
    expect(posted("The deploy is green.")).toBe(1);
    expect(model.requests.filter((request) => isSlotRun(request, what))).toHaveLength(2);
    expect(slack.callsTo("chat.postMessage").find((call) => call.args.text === "The deploy is green.")!.args).toMatchObject({
      channel: "C0GENERAL",
    });
  }, 90_000);

  it("SIGTERM right at the slot's time: after the restart the slot has run exactly once", async () => {
    const storeUrl = `sqlite://${folder.path}/bot.sqlite`;
    const port = await freePort();
    const what = "post the standup reminder";
    model.enqueue(...Array.from({ length: 5 }, () => ({ ...textReply("Standup in 5 minutes."), delayMs: 1_500 })));
    // Due a few seconds after the bot is up (it starts in about two).
    const due = Date.now() + 8_000;
    await seedOneShot(storeUrl, due, what);
    const second = await bot(storeUrl, port);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - Date.now())));
    second.child.kill("SIGTERM");
    await second.exited;

    const third = await bot(storeUrl, port);
    await until(() => posted("Standup in 5 minutes.") >= 1, `the answer\nsecond:\n${second.logs()}\nthird:\n${third.logs()}`, 30_000);
    // Whatever the second process got to before it stopped, nothing runs the slot again.
    await until(async () => {
      const depth = await fetch(`http://127.0.0.1:${port}/metrics`).then((response) => response.text());
      return /agent_bot_queue_depth 0\b/.test(depth);
    }, "the queue to drain");
    third.child.kill("SIGTERM");
    await third.exited;
    expect(posted("Standup in 5 minutes.")).toBe(1);
    expect(model.requests.filter((request) => isSlotRun(request, what)).length).toBeLessThanOrEqual(2);
  }, 90_000);
});
