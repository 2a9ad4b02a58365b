// HTTP mode end to end: the real Bolt app receives signed requests, the real agent service
// runs a scripted model, and every Web API call lands on the fake Slack.
import { afterEach, describe, expect, it } from "vitest";
import { call, ScriptedModel, say } from "../../support/model-scripted.js";
import { BOT_ID, BOT_USER_ID, type FakeMessage } from "../../support/fake-slack.js";
import { directMessageEvent, mentionEvent, postEvent } from "../../support/fake-slack-requests.js";
import { gatedModel, startSlackHarness, type SlackHarness } from "../../support/slack-harness.js";

let harness: SlackHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const taskChunks = (message: FakeMessage | undefined) =>
  (message?.chunks ?? []).filter(
    (chunk): chunk is { type: string; id: string; status: string } => (chunk as { type?: string }).type === "task_update",
  );

describe("Slack over HTTP", () => {
  it("acknowledges a mention before the run ends, then answers in the thread with the streamed trace", async () => {
    const model = gatedModel(new ScriptedModel([call("calculator", { expression: "6*7" }, "call_calc"), say("It is **42**.")]));
    harness = await startSlackHarness({ model });
    const { fake } = harness;

    const response = await postEvent(harness.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> what is 6*7?`, ts: "1700000100.000100" }));
    expect(response.status).toBe(200);
    await model.waiting;
    expect(fake.callsTo("chat.postMessage")).toHaveLength(0);

    model.open();
    const answer = await fake.waitForCall("chat.postMessage", (c) => String(c.args.text).includes("42"));
    expect(answer.args).toMatchObject({ channel: "C0GENERAL", thread_ts: "1700000100.000100", text: "It is *42*." });

    const start = fake.callsTo("chat.startStream")[0];
    expect(start?.args).toMatchObject({ channel: "C0GENERAL", thread_ts: "1700000100.000100", recipient_user_id: "U0ALICE" });
    const stream = fake.threadMessages("C0GENERAL", "1700000100.000100").find((m) => m.streaming === "stopped");
    const statuses = taskChunks(stream)
      .filter((chunk) => chunk.id === "call_calc")
      .map((chunk) => chunk.status);
    expect(statuses[0]).toBe("pending");
    expect(statuses.at(-1)).toBe("complete");
    expect(fake.callsTo("assistant.threads.setStatus")[0]?.args).toMatchObject({
      channel_id: "C0GENERAL",
      thread_ts: "1700000100.000100",
      status: "is thinking…",
    });
    for (const post of fake.callsTo("chat.postMessage")) expect(post.args.thread_ts).toBe("1700000100.000100");
  });

  it("runs a redelivered event only once", async () => {
    const model = new ScriptedModel([say("once")], { whenExhausted: say("twice") });
    harness = await startSlackHarness({ model });
    const event = mentionEvent({ text: `<@${BOT_USER_ID}> hi`, ts: "1700000200.000100" });

    expect((await postEvent(harness.eventsUrl, event)).status).toBe(200);
    await harness.fake.waitForCall("chat.postMessage", (c) => c.args.text === "once");
    expect((await postEvent(harness.eventsUrl, event, { retryNum: 1, retryReason: "http_timeout" })).status).toBe(200);
    await harness.restart();
    expect((await postEvent(harness.eventsUrl, event, { retryNum: 2 })).status).toBe(200);
    await harness.adapter.stop();

    expect(model.requests).toHaveLength(1);
    expect(harness.fake.callsTo("chat.postMessage").filter((c) => c.args.text === "twice")).toHaveLength(0);
  });

  it("refuses a bad signature and a stale timestamp with 401 and runs nothing", async () => {
    const model = new ScriptedModel([], { whenExhausted: say("should not run") });
    harness = await startSlackHarness({ model });
    const event = mentionEvent({ text: `<@${BOT_USER_ID}> hi`, ts: "1700000300.000100" });

    expect((await postEvent(harness.eventsUrl, event, { signature: "v0=deadbeef" })).status).toBe(401);
    expect((await postEvent(harness.eventsUrl, event, { signingSecret: "another-secret" })).status).toBe(401);
    expect((await postEvent(harness.eventsUrl, event, { timestamp: Math.floor(Date.now() / 1000) - 10 * 60 })).status).toBe(401);
    await harness.adapter.stop();
    expect(model.requests).toHaveLength(0);
    expect(harness.fake.callsTo("chat.postMessage")).toHaveLength(0);
  });

  it("never answers itself, other bots, edits or deletions", async () => {
    const model = new ScriptedModel([], { whenExhausted: say("should not run") });
    harness = await startSlackHarness({ model });
    const url = harness.eventsUrl;
    await postEvent(url, directMessageEvent({ user: BOT_USER_ID, text: "my own words", ts: "1700000400.000100" }));
    await postEvent(url, directMessageEvent({ user: "U0OTHERBOT", bot_id: "B0OTHER", text: "beep", ts: "1700000401.000100" }));
    await postEvent(url, directMessageEvent({ text: "edited", ts: "1700000402.000100", subtype: "message_changed" }));
    await postEvent(url, directMessageEvent({ text: "gone", ts: "1700000403.000100", subtype: "message_deleted" }));
    await postEvent(url, mentionEvent({ user: BOT_USER_ID, bot_id: BOT_ID, text: `<@${BOT_USER_ID}> echo`, ts: "1700000404.000100" }));
    await harness.adapter.stop();
    expect(model.requests).toHaveLength(0);
    expect(harness.fake.callsTo("chat.postMessage")).toHaveLength(0);
  });

  it("answers a top-level direct message in a thread under it, with the trace there too", async () => {
    const model = new ScriptedModel([call("calculator", { expression: "1+1" }), say("Two.")]);
    harness = await startSlackHarness({ model });
    await postEvent(harness.eventsUrl, directMessageEvent({ text: "1+1?", ts: "1700000500.000100" }));
    const answer = await harness.fake.waitForCall("chat.postMessage", (c) => c.args.text === "Two.");
    expect(answer.args).toMatchObject({ channel: "D0ALICE", thread_ts: "1700000500.000100" });
    expect(harness.fake.callsTo("chat.startStream")[0]?.args.thread_ts).toBe("1700000500.000100");
  });
});
