// Three real bot processes (Slack in HTTP mode) on one real Redis, sharing the work through
// BullMQ: events spread round robin with redeliveries to another process, a process killed
// with kill -9 halfway, and an approval paused on one process and clicked on another. Each
// process has its own fake model server, so the requests each server got are the runs each
// process did.
import { expect, it } from "vitest";
import { APPROVE_ACTION } from "../../src/adapters/slack/approval-message.js";
import { freePort } from "../support/free-port.js";
import { startBot, type BotProcess } from "../support/bot-child.js";
import { startFakeOpenAI, textReply, toolCallReply, type FakeOpenAI, type RecordedRequest } from "../support/fake-openai-server.js";
import { BOT_USER_ID, shownText } from "../support/fake-slack.js";
import { clickOnMessage, mentionEvent, nextEventId, postEvent, postInteraction } from "../support/fake-slack-requests.js";
import { until } from "../support/until.js";
import { useSlackRedisHarness } from "../support/slack-redis-harness.js";
import { describeWithRedis } from "../support/redis-suite.js";

const CONVERSATIONS = Number(process.env.MULTI_PROCESS_CONVERSATIONS ?? 500);
const IN_FLIGHT = 30;

const harness = useSlackRedisHarness();
const { bots, models } = harness;

const lastUserText = (request: RecordedRequest): string =>
  String(
    (request.body.messages as Array<{ role: string; content: string }>).filter((message) => message.role === "user").at(-1)?.content ?? "",
  );

/** Answers "answer <question id>" to every question, at once (the question comes after any thread context). */
const echo = (request: RecordedRequest) =>
  textReply(
    `answer ${
      lastUserText(request)
        .match(/q-\d+-\d/g)
        ?.at(-1) ?? "?"
    }`,
  );

async function startBots(count: number): Promise<void> {
  models.push(...(await Promise.all(Array.from({ length: count }, () => startFakeOpenAI()))));
  for (const model of models) model.enqueue(...Array.from({ length: CONVERSATIONS * 3 }, () => echo));
  await startEach(models);
}

/** One bot per model server (with its BOT_ROLE, default all); those that started are stopped after the test even when another failed. */
async function startEach(servers: readonly FakeOpenAI[], roles: readonly string[] = []): Promise<void> {
  const started = await Promise.allSettled(
    servers.map(async (model, index) =>
      startBot({
        slackApiUrl: harness.slack.apiUrl,
        openaiBaseUrl: model.baseUrl,
        storeUrl: harness.redis.url,
        port: await freePort(),
        env: { BOT_ROLE: roles[index] ?? "all" },
      }),
    ),
  );
  bots.push(...started.flatMap((result) => (result.status === "fulfilled" ? [result.value] : [])));
  const failed = started.find((result) => result.status === "rejected");
  if (failed) throw failed.reason;
}

/** The bots' warnings and errors, to read when an answer never came. */
const troubles = (): string =>
  bots
    .flatMap((bot, index) =>
      bot
        .logs()
        .split("\n")
        .filter((line) => /"level":(40|50|60)/.test(line))
        .slice(0, 10)
        .map((line) => `bot ${index}: ${line.slice(0, 400)}`),
    )
    .join("\n");

const answers = () => harness.slack.shown((text) => text.startsWith("answer q-"));

/** Sends each conversation's two messages in order, events round robin over the live bots, every fifth one delivered again to another bot. */
async function converse(count: number, live: () => BotProcess[]): Promise<void> {
  let sent = 0;
  const deliver = async (payload: Record<string, unknown>): Promise<void> => {
    const turn = sent++;
    for (;;) {
      const targets = live();
      const first = targets[turn % targets.length]!;
      try {
        await postEvent(first.eventsUrl, payload);
        if (turn % 5 === 0)
          await postEvent(targets[(turn + 1) % targets.length]!.eventsUrl, payload, { retryNum: 1, retryReason: "http_timeout" });
        return;
      } catch {
        // That process is gone (kill -9): Slack delivers again, to another one.
      }
    }
  };
  let next = 0;
  const conversation = async (): Promise<void> => {
    while (next < count) {
      const index = next++;
      const thread = `1700300000.${String(index).padStart(6, "0")}`;
      const followUp = `1700300001.${String(index).padStart(6, "0")}`;
      // What people wrote is in the channel, as in Slack, for the thread context the bot reads.
      harness.slack.addMessage({ channel: "C0GENERAL", ts: thread, user: "U0ALICE", text: `<@${BOT_USER_ID}> q-${index}-1` });
      await deliver(mentionEvent({ text: `<@${BOT_USER_ID}> q-${index}-1`, ts: thread }, nextEventId()));
      // The ack comes once the first message is recorded and queued, so the follow-up, sent after
      // it to whichever process, runs after it.
      harness.slack.addMessage({
        channel: "C0GENERAL",
        ts: followUp,
        thread_ts: thread,
        user: "U0ALICE",
        text: `<@${BOT_USER_ID}> q-${index}-2`,
      });
      await deliver(mentionEvent({ text: `<@${BOT_USER_ID}> q-${index}-2`, ts: followUp, thread_ts: thread }, nextEventId()));
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, conversation));
}

/** Conversations whose thread did not get "answer q-i-1" then "answer q-i-2"; `repeatsAllowed` first drops answers posted again. */
function wronglyAnswered(count: number, repeatsAllowed = false): string[] {
  const byThread = new Map<string, string[]>();
  for (const message of answers())
    byThread.set(String(message.thread_ts), [...(byThread.get(String(message.thread_ts)) ?? []), shownText(message)]);
  const wrong: string[] = [];
  for (let index = 0; index < count; index += 1) {
    const thread = `1700300000.${String(index).padStart(6, "0")}`;
    const got = byThread.get(thread) ?? [];
    const seen = repeatsAllowed ? [...new Set(got)] : got;
    const others = harness.slack.shown((text, message) => message.thread_ts === thread && !text.startsWith("answer q-"));
    if (seen.join("|") !== `answer q-${index}-1|answer q-${index}-2`)
      wrong.push(`${thread}: ${got.join(" | ")} (also posted: ${others.map((message) => shownText(message).slice(0, 80)).join(" / ")})`);
  }
  return wrong;
}

describeWithRedis("three bot processes on one Redis", () => {
  it(`answers ${CONVERSATIONS} conversations × 2 messages once each, in order, with every process doing at least 20 %`, async () => {
    await startBots(3);
    await converse(CONVERSATIONS, () => bots);
    await until(() => answers().length >= CONVERSATIONS * 2, "every answer", 240_000, 200).catch((error: Error) => {
      throw new Error(`${error.message} (${answers().length} answers)\n${troubles()}`);
    });
    const wrong = wronglyAnswered(CONVERSATIONS);
    const runs = models.map((model) => model.requests.length);
    // One summary, so a failure reads at a glance.
    expect({
      wrong: wrong.length,
      firstWrong: wrong.slice(0, 5),
      runs: runs.reduce((sum, count) => sum + count, 0),
      smallestShare: Math.min(...runs) / (CONVERSATIONS * 2) >= 0.2,
    }).toEqual({
      wrong: 0,
      firstWrong: [],
      runs: CONVERSATIONS * 2,
      smallestShare: true,
    });
  }, 300_000);

  it("finishes a killed process's runs on the others", async () => {
    await startBots(3);
    const victim = bots[0]!;
    let killed = false;
    const sending = converse(CONVERSATIONS, () => (killed ? bots.slice(1) : bots));
    await until(() => answers().length >= CONVERSATIONS, "half of the answers", 240_000, 100);
    victim.child.kill("SIGKILL");
    killed = true;
    await victim.exited;
    await sending;
    await until(() => new Set(answers().map(shownText)).size >= CONVERSATIONS * 2, "every answer", 240_000, 200).catch((error: Error) => {
      throw new Error(`${error.message} (${answers().length} answers)\n${troubles()}`);
    });

    // A run the killed process had answered but not yet recorded is answered again: at most its slots' worth.
    const texts = answers().map(shownText);
    const wrong = wronglyAnswered(CONVERSATIONS, true);
    expect({ wrong: wrong.length, firstWrong: wrong.slice(0, 5), repeatedAtMost8: texts.length - new Set(texts).size <= 8 }).toEqual({
      wrong: 0,
      firstWrong: [],
      repeatedAtMost8: true,
    });
  }, 300_000);

  it("resumes an approval paused on one process and clicked on another exactly once", async () => {
    const THREAD = "1700400000.000100";
    const approve = (request: RecordedRequest) =>
      (request.body.messages as Array<{ role: string }>).some((message) => message.role === "tool")
        ? textReply("Posted.")
        : toolCallReply([{ name: "post_message", args: { channel: "C0RANDOM", text: "Standup moved" }, id: "w1" }]);
    models.push(...(await Promise.all([0, 1].map(() => startFakeOpenAI()))));
    for (const model of models) model.enqueue(approve, approve, approve);
    await startEach(models);

    await postEvent(bots[0]!.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> tell #random the standup moved`, ts: THREAD }));
    await harness.slack.waitForCall("chat.postMessage", (call) => JSON.stringify(call.args.blocks ?? []).includes(APPROVE_ACTION), 30_000);
    const pausedOn = models.findIndex((model) => model.requests.length === 1);
    const other = bots[1 - pausedOn]!;
    const message = harness.slack.threadMessages("C0GENERAL", THREAD).find((m) => JSON.stringify(m.blocks ?? []).includes(APPROVE_ACTION))!;
    const click = clickOnMessage(message, { user: "U0ALICE", actionId: APPROVE_ACTION });
    // Clicked on the other process, then once more on each (a double click landing anywhere).
    await postInteraction(other.eventsUrl, click);
    await Promise.all(bots.map((bot) => postInteraction(bot.eventsUrl, click)));

    await harness.slack.waitForShown((text) => text === "Posted.", 30_000);
    await until(() => models.reduce((sum, model) => sum + model.requests.length, 0) >= 2, "the resumed run's model call", 10_000);
    expect(harness.slack.callsTo("chat.postMessage").filter((call) => call.args.channel === "C0RANDOM")).toHaveLength(1);
    expect(harness.slack.shown((text) => text === "Posted.")).toHaveLength(1);
    expect(models.reduce((sum, model) => sum + model.requests.length, 0)).toBe(2);
  }, 120_000);

  it("SIGTERM to the process running a conversation's first message: another process finishes it before the follow-up", async () => {
    const THREAD = "1700500000.000100";
    const FOLLOW_UP = "1700500001.000100";
    // The first message takes a slow calculator step, then answers; the follow-up answers at once.
    const script = (request: RecordedRequest) => {
      const question = lastUserText(request).match(/order-\d/)?.[0] ?? "?";
      const done = (request.body.messages as Array<{ role: string }>).filter((message) => message.role === "tool").length;
      if (question === "order-1" && done === 0)
        return { ...toolCallReply([{ name: "calculator", args: { expression: "6*7" }, id: "c1" }]), delayMs: 2_000 };
      return textReply(`answer ${question}`);
    };
    models.push(...(await Promise.all([0, 1].map(() => startFakeOpenAI()))));
    for (const model of models) model.enqueue(...Array.from({ length: 10 }, () => script));
    await startEach(models);

    harness.slack.addMessage({ channel: "C0GENERAL", ts: THREAD, user: "U0ALICE", text: `<@${BOT_USER_ID}> order-1` });
    await postEvent(bots[0]!.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> order-1`, ts: THREAD }));
    await until(() => models.some((model) => model.requests.length > 0), "the first message's run to start", 20_000);
    const running = models.findIndex((model) => model.requests.length > 0);
    const other = bots[1 - running]!;
    // Acknowledged after the first one, on the other process: it waits behind the first in the conversation.
    harness.slack.addMessage({
      channel: "C0GENERAL",
      ts: FOLLOW_UP,
      thread_ts: THREAD,
      user: "U0ALICE",
      text: `<@${BOT_USER_ID}> order-2`,
    });
    expect(
      (await postEvent(other.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> order-2`, ts: FOLLOW_UP, thread_ts: THREAD }))).status,
    ).toBe(200);
    // A deploy: the run stops at its next checkpoint (after the slow step) and the process exits.
    bots[running]!.child.kill("SIGTERM");
    expect((await bots[running]!.exited).code).toBe(0);

    const answered = () => harness.slack.shown((text) => text.startsWith("answer order-")).map(shownText);
    await until(() => answered().length >= 2, "both answers", 60_000, 100).catch((error: Error) => {
      throw new Error(`${error.message} (answered: ${answered().join(", ")})\n${troubles()}`);
    });
    expect(answered()).toEqual(["answer order-1", "answer order-2"]);
  }, 120_000);

  it("with BOT_ROLE=ingress records and queues a message that a BOT_ROLE=worker process answers", async () => {
    models.push(...(await Promise.all([0, 1].map(() => startFakeOpenAI()))));
    for (const model of models) model.enqueue(echo, echo);
    await startEach(models, ["ingress", "worker"]);
    const [ingress] = bots;
    const thread = "1700300000.000000";
    harness.slack.addMessage({ channel: "C0GENERAL", ts: thread, user: "U0ALICE", text: `<@${BOT_USER_ID}> q-0-1` });
    await postEvent(ingress!.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> q-0-1`, ts: thread }));
    await harness.slack.waitForShown((text) => text === "answer q-0-1", 30_000);
    expect(models.map((model) => model.requests.length)).toEqual([0, 1]);
  }, 120_000);
});
