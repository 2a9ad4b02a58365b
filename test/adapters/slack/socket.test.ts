// Socket Mode end to end: apps.connections.open with a custom API URL, the hello, events in
// envelopes acknowledged over the WebSocket, and the Messages tab (assistant threads).
import { afterEach, describe, expect, it } from "vitest";
import { call, ScriptedModel, say } from "../../support/model-scripted.js";
import { BOT_USER_ID } from "../../support/fake-slack.js";
import { APPROVE_ACTION } from "../../../src/adapters/slack/approval-message.js";
import { clickOnMessage, directMessageEvent, mentionEvent, messagesTabOpenedEvent } from "../../support/fake-slack-requests.js";
import { gatedModel, startSlackHarness, type SlackHarness } from "../../support/slack-harness.js";

let harness: SlackHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe("Slack in Socket Mode", () => {
  it("acknowledges the envelope before the run ends, then answers in the thread", async () => {
    const model = gatedModel(new ScriptedModel([call("calculator", { expression: "2*21" }), say("42, as computed.")]));
    harness = await startSlackHarness({ model, mode: "socket" });
    const { fake } = harness;
    expect(fake.callsTo("apps.connections.open")).toHaveLength(1);

    const envelope = fake.sendEnvelope("events_api", mentionEvent({ text: `<@${BOT_USER_ID}> 2*21?`, ts: "1700004000.000100" }));
    await fake.waitForAck(envelope);
    await model.waiting;
    expect(fake.callsTo("chat.postMessage")).toHaveLength(0);

    model.open();
    const answer = await fake.waitForShown((text) => text === "42, as computed.");
    expect(answer.thread_ts).toBe("1700004000.000100");
    // The trace and the answer each stream, both in the thread.
    expect(fake.callsTo("chat.startStream").map((call) => call.args.thread_ts)).toEqual(["1700004000.000100", "1700004000.000100"]);
  });

  it("runs a redelivered envelope (same event id) only once", async () => {
    const model = new ScriptedModel([say("first")], { whenExhausted: say("again") });
    harness = await startSlackHarness({ model, mode: "socket" });
    const event = mentionEvent({ text: `<@${BOT_USER_ID}> hello`, ts: "1700004100.000100" });
    await harness.fake.waitForAck(harness.fake.sendEnvelope("events_api", event));
    await harness.fake.waitForShown((text) => text === "first");
    await harness.fake.waitForAck(harness.fake.sendEnvelope("events_api", event, { retryAttempt: 1, retryReason: "timeout" }));
    await harness.adapter.stop();
    expect(model.requests).toHaveLength(1);
  });

  it("takes Approve clicks through the socket too", async () => {
    const model = new ScriptedModel([call("post_message", { channel: "C0RANDOM", text: "hello" }), say("Posted.")]);
    harness = await startSlackHarness({ model, mode: "socket" });
    const { fake } = harness;
    fake.sendEnvelope("events_api", mentionEvent({ text: `<@${BOT_USER_ID}> say hello in random`, ts: "1700004300.000100" }));
    await fake.waitForCall("chat.postMessage", (c) => JSON.stringify(c.args.blocks ?? []).includes(APPROVE_ACTION));
    const message = fake
      .threadMessages("C0GENERAL", "1700004300.000100")
      .find((m) => JSON.stringify(m.blocks ?? []).includes(APPROVE_ACTION))!;
    const click = clickOnMessage(message, { user: "U0ALICE", actionId: APPROVE_ACTION });
    await fake.waitForAck(fake.sendEnvelope("interactive", click));
    await fake.waitForShown((text) => text === "Posted.");
    expect(fake.callsTo("chat.postMessage").filter((c) => c.args.channel === "C0RANDOM")).toHaveLength(1);
  });

  it("takes the Messages tab opening quietly and answers a DM there in a thread", async () => {
    const model = new ScriptedModel([say("Hello from the tab.")]);
    harness = await startSlackHarness({ model, mode: "socket" });
    const { fake } = harness;
    await fake.waitForAck(fake.sendEnvelope("events_api", messagesTabOpenedEvent()));
    fake.sendEnvelope("events_api", directMessageEvent({ text: "hi there", ts: "1700004200.000100" }));
    const answer = await fake.waitForShown((text) => text === "Hello from the tab.");
    expect(answer).toMatchObject({ channel: "D0ALICE", thread_ts: "1700004200.000100" });
    expect(model.requests).toHaveLength(1);
    expect(harness.logs.filter((line) => Number(line.level) >= 50)).toEqual([]);
  });

  it("stops within its bound when Socket Mode never says goodbye", async () => {
    harness = await startSlackHarness({ model: new ScriptedModel([]), mode: "socket" });
    harness.fake.holdGoodbyes();
    const started = performance.now();
    await harness.adapter.stop();
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});
