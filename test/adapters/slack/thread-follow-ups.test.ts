// Replies in a thread without a mention (message.channels / message.groups): answered in a thread
// the bot works in, left alone in other threads, at a channel's top level, when they address
// someone else, and where the channel's settings keep the old rule (threadFollowUps: mention).
import { describe, expect, it } from "vitest";
import type { ModelRequest } from "../../../src/contracts/types.js";
import { intakeIdFor } from "../../../src/runs/intake/intake-store.js";
import { BOT_USER_ID } from "../../support/fake-slack.js";
import { channelMessageEvent, mentionEvent, postEvent } from "../../support/fake-slack-requests.js";
import { settingsOf } from "../../support/governance-harness.js";
import { ScriptedModel } from "../../support/model-scripted.js";
import { usePerTest } from "../../support/per-test.js";
import { startSlackHarness, type SlackHarness } from "../../support/slack-harness.js";
import { until } from "../../support/until.js";

const perTest = usePerTest();
const ROOT = "1700400000.000100";

const lastQuestion = (request: ModelRequest) => request.messages.filter((message) => message.role === "user").at(-1)?.content;

async function answeredThread(settings?: unknown): Promise<{ harness: SlackHarness; model: ScriptedModel }> {
  const model = new ScriptedModel([], { whenExhausted: { text: "Done." } });
  const harness = perTest.closeAfter(await startSlackHarness({ model, ...(settings ? { settings: settingsOf(settings) } : {}) }));
  await postEvent(harness.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> summarise #releases`, ts: ROOT }));
  await harness.fake.waitForShown((text, message) => text === "Done." && message.thread_ts === ROOT);
  return { harness, model };
}

const answersIn = (harness: SlackHarness, thread: string) =>
  harness.fake.shown((text, message) => text === "Done." && message.thread_ts === thread).length;

/** Whether the message was taken (recorded): the ack comes once it is, so this is final when postEvent returns. */
const taken = async (harness: SlackHarness, ts: string, channel = "C0GENERAL") =>
  (await harness.store.get(`intake:${intakeIdFor("slack", `${channel}:${ts}`)}`)) !== undefined;

describe("Slack: replies in a thread without a mention", () => {
  it("a reply in the thread the bot answered in is a question, answered in that thread", async () => {
    const { harness, model } = await answeredThread();
    const reply = await postEvent(
      harness.eventsUrl,
      channelMessageEvent({ text: "and for last week?", ts: "1700400005.000100", thread_ts: ROOT }),
    );
    expect(reply.status).toBe(200);
    await until(() => answersIn(harness, ROOT) === 2, "the second answer in the thread");
    expect(model.requests).toHaveLength(2);
    expect(lastQuestion(model.requests[1]!)).toBe("and for last week?");
  });

  it("a reply in a private channel's thread (message.groups) is taken the same way", async () => {
    const { harness, model } = await answeredThread();
    await postEvent(
      harness.eventsUrl,
      channelMessageEvent({ text: "more please", ts: "1700400006.000100", thread_ts: ROOT, channelType: "group" }),
    );
    await until(() => model.requests.length === 2, "the second question");
  });

  it("a reply in a thread the bot never worked in is not for it", async () => {
    const { harness } = await answeredThread();
    await postEvent(harness.eventsUrl, channelMessageEvent({ text: "lunch?", ts: "1700400011.000100", thread_ts: "1700400010.000100" }));
    expect(await taken(harness, "1700400011.000100")).toBe(false);
  });

  it("a message at the channel's top level is not for it", async () => {
    const { harness } = await answeredThread();
    await postEvent(harness.eventsUrl, channelMessageEvent({ text: "good morning", ts: "1700400012.000100" }));
    expect(await taken(harness, "1700400012.000100")).toBe(false);
  });

  it("a reply in its thread that mentions someone else (and not the bot) is addressed to them", async () => {
    const { harness } = await answeredThread();
    await postEvent(harness.eventsUrl, channelMessageEvent({ text: "<@U0BOB> can you check?", ts: "1700400013.000100", thread_ts: ROOT }));
    await postEvent(
      harness.eventsUrl,
      channelMessageEvent({ text: "<!subteam^S0OPS|ops> over to you", ts: "1700400014.000100", thread_ts: ROOT }),
    );
    expect(await taken(harness, "1700400013.000100")).toBe(false);
    expect(await taken(harness, "1700400014.000100")).toBe(false);
  });

  it("a mention in its thread is answered once: as app_mention, its message.channels twin is left", async () => {
    const { harness, model } = await answeredThread();
    const ts = "1700400015.000100";
    await postEvent(harness.eventsUrl, channelMessageEvent({ text: `<@${BOT_USER_ID}> again`, ts, thread_ts: ROOT }));
    expect(await taken(harness, ts)).toBe(false);
    await postEvent(harness.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> again`, ts, thread_ts: ROOT }));
    await until(() => model.requests.length === 2, "the second question");
  });

  it("messages of bots and of the bot itself in its thread are not questions", async () => {
    const { harness } = await answeredThread();
    await postEvent(harness.eventsUrl, channelMessageEvent({ text: "beep", ts: "1700400016.000100", thread_ts: ROOT, bot_id: "B0OTHER" }));
    await postEvent(harness.eventsUrl, channelMessageEvent({ text: "Done.", ts: "1700400017.000100", thread_ts: ROOT, user: BOT_USER_ID }));
    expect(await taken(harness, "1700400016.000100")).toBe(false);
    expect(await taken(harness, "1700400017.000100")).toBe(false);
  });

  it("threadFollowUps: mention keeps today's rule in that channel: only a mention reaches the bot", async () => {
    const { harness, model } = await answeredThread({ channels: { C0GENERAL: { threadFollowUps: "mention" } } });
    await postEvent(harness.eventsUrl, channelMessageEvent({ text: "and for last week?", ts: "1700400018.000100", thread_ts: ROOT }));
    expect(await taken(harness, "1700400018.000100")).toBe(false);
    expect(model.requests).toHaveLength(1);
  });
});
