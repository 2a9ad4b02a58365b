// The settings file through the real Slack adapter (Bolt in HTTP mode against the fake Slack):
// refusals told privately with no model call, a redelivery not refused twice, and the
// `audit` and `settings` commands.
import { afterEach, describe, expect, it } from "vitest";
import { say, ScriptedModel } from "../../support/model-scripted.js";
import { REFUSED_IN_PUBLIC } from "../../../src/adapters/core/texts.js";
import { BOT_USER_ID } from "../../support/fake-slack.js";
import { directMessageEvent, mentionEvent, postEvent } from "../../support/fake-slack-requests.js";
import { startSlackHarness, type SlackHarness } from "../../support/slack-harness.js";
import { settingsOf } from "../../support/governance-harness.js";
import { until } from "../../support/until.js";
import { createLongTermMemory } from "../../../src/memory/long-term-memory.js";
import { silentLogger } from "../../../src/logger.js";

let harness: SlackHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const settings = settingsOf({
  access: { admins: { slack: ["U0BOSS"] }, block: { users: ["U0MALLORY", "U0STRANGER"], channels: ["C0SECRET"] }, dms: false },
  limits: { user: { runsPerMinute: 3 } },
  channels: { C0GENERAL: { model: "gpt-4.1", tools: { deny: ["post_message"] } } },
});

async function start(model: ScriptedModel): Promise<SlackHarness> {
  harness = await startSlackHarness({ model, settings });
  return harness;
}

const ephemeralTo = (h: SlackHarness, user: string) => h.fake.callsTo("chat.postEphemeral").filter((call) => call.args.user === user);

describe("Slack refusals", () => {
  it.each([
    ["a blocked user", { user: "U0MALLORY", channel: "C0GENERAL" }, "U0MALLORY", /not allowed to use this bot/],
    ["a blocked channel", { user: "U0ALICE", channel: "C0SECRET" }, "U0ALICE", /don't answer in this channel/],
  ])("%s is told privately, and no model request is made", async (_what, where, user, text) => {
    const model = new ScriptedModel([say("should not run")]);
    const h = await start(model);
    await postEvent(h.eventsUrl, mentionEvent({ ...where, text: `<@${BOT_USER_ID}> hello`, ts: "1700001000.000100" }));
    const told = await h.fake.waitForCall("chat.postEphemeral");
    expect(told.args).toMatchObject({ user, channel: where.channel, thread_ts: "1700001000.000100", text: expect.stringMatching(text) });
    expect(model.requests).toHaveLength(0);
    expect(h.fake.callsTo("chat.postMessage")).toHaveLength(0);
    expect(h.fake.callsTo("assistant.threads.setStatus")).toHaveLength(0);
  });

  it("a DM is refused when dms is false", async () => {
    const model = new ScriptedModel([say("should not run")]);
    const h = await start(model);
    await postEvent(h.eventsUrl, directMessageEvent({ channel: "D0ALICE", text: "hello", ts: "1700001100.000100" }));
    expect((await h.fake.waitForCall("chat.postEphemeral")).args.text).toMatch(/don't answer direct messages/);
    expect(model.requests).toHaveLength(0);
  });

  it("when Slack refuses the ephemeral message (not a member), the refusal goes by DM, and nothing shows in the thread", async () => {
    const h = await start(new ScriptedModel([]));
    await postEvent(h.eventsUrl, mentionEvent({ user: "U0STRANGER", text: `<@${BOT_USER_ID}> hello`, ts: "1700001200.000100" }));
    const dm = await h.fake.waitForCall("chat.postMessage");
    expect(dm.args).toMatchObject({ channel: "U0STRANGER", text: expect.stringMatching(/not allowed to use this bot/) });
    expect(h.fake.callsTo("chat.postMessage").filter((call) => call.args.channel === "C0GENERAL")).toHaveLength(0);
  });

  it("when Slack refuses the ephemeral message and the DM, the reply in the thread names no details", async () => {
    const h = await start(new ScriptedModel([]));
    h.fake.fail("chat.postMessage", { error: "cannot_dm_bot" });
    await postEvent(h.eventsUrl, mentionEvent({ user: "U0STRANGER", text: `<@${BOT_USER_ID}> hello`, ts: "1700001250.000100" }));
    const reply = await h.fake.waitForCall("chat.postMessage", (call) => call.args.channel === "C0GENERAL");
    expect(reply.args).toMatchObject({ thread_ts: "1700001250.000100", text: REFUSED_IN_PUBLIC });
  });

  it("a redelivered refused message is not refused (or counted) twice", async () => {
    const h = await start(new ScriptedModel([]));
    const event = mentionEvent({ user: "U0MALLORY", text: `<@${BOT_USER_ID}> hello`, ts: "1700001300.000100" });
    await postEvent(h.eventsUrl, event);
    await h.fake.waitForCall("chat.postEphemeral");
    await postEvent(h.eventsUrl, event, { retryNum: 1 });
    await until(() => h.logs.some((line) => line.msg === "message already taken; ignoring the redelivery"), "the redelivery's log line");
    expect(ephemeralTo(h, "U0MALLORY")).toHaveLength(1);
    expect(h.logs.filter((line) => line.msg === "request refused by the settings")).toHaveLength(1);
  });

  it("the 4th request in a minute with a limit of 3 is refused with when it resets; the channel's tool list holds", async () => {
    const model = new ScriptedModel([], { whenExhausted: say("ok") });
    const h = await start(model);
    for (let index = 1; index <= 4; index++)
      await postEvent(h.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> q${index}`, ts: `170000140${index}.000100` }));
    expect((await h.fake.waitForCall("chat.postEphemeral")).args.text).toMatch(
      /^Sorry, your limit of 3 requests a minute is reached\. It resets in \d+ s\.$/,
    );
    await until(() => model.requests.length === 3, "three runs", 20_000);
    expect(model.requests.every((request) => !request.tools.some((tool) => tool.name === "post_message"))).toBe(true);
  });
});

describe("Slack commands", () => {
  it("`@bot audit` is refused to a non-admin and shown to an admin, privately", async () => {
    const h = await start(new ScriptedModel([]));
    await postEvent(h.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> audit`, ts: "1700001500.000100" }));
    expect((await h.fake.waitForCall("chat.postEphemeral", (call) => call.args.user === "U0ALICE")).args.text).toBe(
      'Only the bot\'s admins can see the audit log. An admin adds your id "U0ALICE" to access.admins.slack in a settings file (bot.settings.json in the working directory, or the one BOT_SETTINGS names).',
    );
    await postEvent(h.eventsUrl, mentionEvent({ user: "U0BOSS", text: `<@${BOT_USER_ID}> audit`, ts: "1700001501.000100" }));
    expect((await h.fake.waitForCall("chat.postEphemeral", (call) => call.args.user === "U0BOSS")).args.text).toBe(
      "The audit log is empty: no approvals or writes yet.",
    );
  });

  it("`@bot settings` shows the channel's model, tools and the asker's limits left", async () => {
    const h = await start(new ScriptedModel([]));
    await postEvent(h.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> settings`, ts: "1700001600.000100" }));
    const text = String((await h.fake.waitForCall("chat.postMessage")).args.text);
    expect(text).toContain("model: gpt-4.1");
    expect(text).toContain("tools: never post_message");
    expect(text).toMatch(/limits: you: 3 of 3 requests this minute left/);
  });

  it("`@bot memory` and `@bot forget` refuse a blocked person like a question: nothing is shown and nothing is forgotten", async () => {
    const h = await start(new ScriptedModel([]));
    const key = `slack:T0TEAM:C0GENERAL:1700001700.000100`;
    await createLongTermMemory(h.store, { maxFacts: 10, logger: silentLogger }).remember(key, ["The launch code is 1234"]);
    await postEvent(h.eventsUrl, mentionEvent({ user: "U0MALLORY", text: `<@${BOT_USER_ID}> memory`, ts: "1700001700.000100" }));
    expect((await h.fake.waitForCall("chat.postEphemeral", (call) => call.args.user === "U0MALLORY")).args.text).toMatch(
      /not allowed to use this bot/,
    );
    await postEvent(
      h.eventsUrl,
      mentionEvent({ user: "U0MALLORY", text: `<@${BOT_USER_ID}> forget`, ts: "1700001701.000100", thread_ts: "1700001700.000100" }),
    );
    await until(() => ephemeralTo(h, "U0MALLORY").length === 2, "the second refusal");
    expect(JSON.stringify(h.fake.calls)).not.toContain("launch code");
    expect(await h.service.memory.facts(key)).toHaveLength(1);
  });
});

describe("forgetting kept for admins", () => {
  it("`access.forget: admins` refuses `@bot forget` to others and lets an admin clear the memory", async () => {
    harness = await startSlackHarness({
      model: new ScriptedModel([]),
      settings: settingsOf({ access: { admins: { slack: ["U0BOSS"] }, forget: "admins" } }),
    });
    const key = `slack:T0TEAM:C0GENERAL:1700001800.000100`;
    await createLongTermMemory(harness.store, { maxFacts: 10, logger: silentLogger }).remember(key, ["A fact"]);
    await postEvent(harness.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> forget`, ts: "1700001800.000100" }));
    expect((await harness.fake.waitForCall("chat.postEphemeral")).args.text).toBe("Only the bot's admins can clear what I remember here.");
    expect(await harness.service.memory.facts(key)).toHaveLength(1);
    await postEvent(
      harness.eventsUrl,
      mentionEvent({ user: "U0BOSS", text: `<@${BOT_USER_ID}> forget`, ts: "1700001801.000100", thread_ts: "1700001800.000100" }),
    );
    await harness.fake.waitForCall("chat.postMessage", (call) => call.args.text === "Done: I forgot 1 fact about this conversation.");
  });
});
