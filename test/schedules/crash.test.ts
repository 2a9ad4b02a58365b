// Scheduled slots through real bot processes (Slack in HTTP mode, the model behind a fake
// OpenAI server): kill -9 during a slot's run, SIGTERM right at a slot's time, 3 hours down with
// an hourly schedule (SQLite), and two processes on one Redis with the one running a slot
// killed; each slot is answered exactly once. The schedules are written into the store before
// the bots start, as an earlier process would have left them.
import { describe, expect, it } from "vitest";
import { silentLogger } from "../../src/logger.js";
import { openStore } from "../../src/memory/keyv-store.js";
import { newScheduleId, type ScheduleRecord } from "../../src/schedules/schedule-record.js";
import { createScheduleStore } from "../../src/schedules/schedule-store.js";
import { freePort } from "../support/free-port.js";
import { startBot, type BotProcess } from "../support/bot-child.js";
import { startFakeOpenAI, textReply, type RecordedRequest } from "../support/fake-openai-server.js";
import { TEAM_ID } from "../support/fake-slack-types.js";
import { until } from "../support/until.js";
import { useSlackBotHarness } from "../support/slack-bot-harness.js";
import { startRedisServer } from "../support/redis-server.js";
import { describeWithRedis } from "../support/redis-suite.js";

const harness = useSlackBotHarness();

const THREAD = "1700400000.000100";

/** A one-shot schedule of U0ALICE in #general, due at `at`, written where the bot will find it. */
async function seedOneShot(storeUrl: string, at: number, what: string): Promise<ScheduleRecord> {
  return seed(storeUrl, oneShot(at, what));
}

function oneShot(at: number, what: string): ScheduleRecord {
  return {
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
}

async function seed(storeUrl: string, record: ScheduleRecord): Promise<ScheduleRecord> {
  const store = await openStore(storeUrl, silentLogger);
  try {
    await createScheduleStore(store).create(record);
  } finally {
    await store.close();
  }
  return record;
}

async function bot(storeUrl: string, port: number): Promise<BotProcess> {
  const started = await startBot({ slackApiUrl: harness.slack.apiUrl, openaiBaseUrl: harness.model.baseUrl, storeUrl, port });
  harness.bots.push(started);
  return started;
}

const isSlotRun = (request: RecordedRequest, what: string) => JSON.stringify(request.body.messages).includes(what);
const posted = (text: string) => harness.slack.callsTo("chat.postMessage").filter((call) => call.args.text === text).length;

describe("a slot's run across a crash and a deploy", () => {
  it("kill -9 during the slot's run: the next start resumes it and answers once; the slot is not fired again", async () => {
    const storeUrl = `sqlite://${harness.folder.path}/bot.sqlite`;
    const port = await freePort();
    const what = "check that the deploy is green";
    await seedOneShot(storeUrl, Date.now() + 1_000, what);
    let hungOnce = false;
    harness.model.enqueue(
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
    await harness.model.waitForRequests(1, 20_000);
    first.child.kill("SIGKILL");
    await first.exited;
    expect(posted("The deploy is green.")).toBe(0);

    const second = await bot(storeUrl, port);
    await harness.slack
      .waitForCall("chat.postMessage", (call) => call.args.text === "The deploy is green.", 20_000)
      .catch((error: Error) => {
        throw new Error(`${error.message}\nfirst:\n${first.logs()}\nsecond:\n${second.logs()}`);
      });
    second.child.kill("SIGTERM");
    await second.exited;
    expect(posted("The deploy is green.")).toBe(1);
    expect(harness.model.requests.filter((request) => isSlotRun(request, what))).toHaveLength(2);
    expect(harness.slack.callsTo("chat.postMessage").find((call) => call.args.text === "The deploy is green.")!.args).toMatchObject({
      channel: "C0GENERAL",
    });
  }, 90_000);

  it("3 hours down with an hourly schedule: the start runs the latest missed slot once, marked late, and skips the older two", async () => {
    const storeUrl = `sqlite://${harness.folder.path}/bot.sqlite`;
    const port = await freePort();
    const hour = 60 * 60_000;
    const thisHour = Math.floor(Date.now() / hour) * hour;
    const what = "check the queue";
    // What a process left when it stopped after the slot of 3 hours ago: the next one armed, 2 hours ago.
    const record = await seed(storeUrl, {
      ...oneShot(thisHour, what),
      when: { kind: "cron", expression: "0 * * * *", timeZone: "UTC", phrase: "every hour UTC" },
      createdAt: thisHour - 4 * hour,
      changedAt: thisHour - 4 * hour,
      lastSlot: thisHour - 3 * hour,
      nextSlot: thisHour - 2 * hour,
    });
    harness.model.enqueue(...Array.from({ length: 3 }, () => textReply("Queue is short.")));
    const started = await bot(storeUrl, port);
    // 2 skipped: the hours before this one (3, should the hour turn while the bot starts).
    const late = /^Queue is short\.\n\n\(late: due \d\d:00, ran \d\d:\d\d; ([23]) earlier slots skipped\)$/;
    const lateText = () =>
      harness.slack
        .callsTo("chat.postMessage")
        .map((call) => String(call.args.text))
        .find((text) => late.test(text));
    await until(() => lateText() !== undefined, `the late run\n${started.logs()}`, 30_000);
    await until(async () => {
      const metrics = await fetch(`http://127.0.0.1:${port}/metrics`).then((response) => response.text());
      return /agent_bot_queue_depth 0\b/.test(metrics);
    }, "the queue to drain");
    started.child.kill("SIGTERM");
    await started.exited;
    const skipped = Number(late.exec(lateText()!)![1]);
    expect(harness.slack.callsTo("chat.postMessage").filter((call) => String(call.args.text).startsWith("Queue is short."))).toHaveLength(
      1,
    );
    expect(harness.model.requests.filter((request) => isSlotRun(request, what))).toHaveLength(1);
    const store = await openStore(storeUrl, silentLogger);
    try {
      const found = await createScheduleStore(store).load(record.id);
      const ran = thisHour + (skipped - 2) * hour;
      expect(found).toMatchObject({ kind: "found", record: { skippedSlots: skipped, lastSlot: ran, nextSlot: ran + hour } });
    } finally {
      await store.close();
    }
  }, 90_000);

  it("SIGTERM right at the slot's time: after the restart the slot has run exactly once", async () => {
    const storeUrl = `sqlite://${harness.folder.path}/bot.sqlite`;
    const port = await freePort();
    const what = "post the standup reminder";
    harness.model.enqueue(...Array.from({ length: 5 }, () => ({ ...textReply("Standup in 5 minutes."), delayMs: 1_500 })));
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
    expect(harness.model.requests.filter((request) => isSlotRun(request, what)).length).toBeLessThanOrEqual(2);
  }, 90_000);
});

describeWithRedis("a slot shared by two bot processes on Redis", () => {
  it("both arm it, one runs it; kill -9 of that one mid-run: the other finishes it, answered once under one root", async () => {
    const redis = await startRedisServer();
    const models = [await startFakeOpenAI(), await startFakeOpenAI()];
    try {
      const what = "check that the deploy is green";
      await seed(redis.url, oneShot(Date.now() + 8_000, what));
      // The first slot request of all hangs (the process that runs it is killed there); every later one answers.
      let hung = false;
      const script = () => {
        if (hung) return textReply("The deploy is green.");
        hung = true;
        return { hang: true as const };
      };
      for (const server of models) server.enqueue(...Array.from({ length: 4 }, () => script));
      const started = await Promise.all(
        models.map(async (server) => {
          const port = await freePort();
          const process = await startBot({ slackApiUrl: harness.slack.apiUrl, openaiBaseUrl: server.baseUrl, storeUrl: redis.url, port });
          harness.bots.push(process);
          return process;
        }),
      );
      await until(() => models.some((server) => server.requests.length > 0), "the slot's run to start", 30_000);
      const runner = models.findIndex((server) => server.requests.length > 0);
      started[runner]!.child.kill("SIGKILL");
      await started[runner]!.exited;

      const other = started[1 - runner]!;
      // BullMQ hands the killed worker's job on once its lock has lapsed (30 s) at the next stall check.
      await harness.slack
        .waitForCall("chat.postMessage", (call) => call.args.text === "The deploy is green.", 75_000)
        .catch((error: Error) => {
          throw new Error(`${error.message}\nsurvivor:\n${other.logs()}`);
        });
      expect(posted("The deploy is green.")).toBe(1);
      expect(models[1 - runner]!.requests.filter((request) => isSlotRun(request, what)).length).toBeGreaterThanOrEqual(1);
      const roots = harness.slack.callsTo("chat.postMessage").filter((call) => String(call.args.text).startsWith("⏰ Schedule"));
      expect(roots).toHaveLength(1);
      const under = String(
        harness.slack.callsTo("chat.postMessage").find((call) => call.args.text === "The deploy is green.")!.args.thread_ts,
      );
      expect(harness.slack.message("C0GENERAL", under)?.text).toBe(roots[0]!.args.text);
    } finally {
      for (const bot of harness.bots.splice(0)) if (bot.child.exitCode === null && bot.child.signalCode === null) bot.child.kill("SIGKILL");
      await Promise.all(models.map((server) => server.close()));
      await redis.stop();
    }
  }, 120_000);
});
