// Slack as the real platform behaves, end to end through Bolt over HTTP: a DM that mentions the
// bot arrives twice, DMs are answered in a thread, future-dated requests, refusals to people
// outside the channel, Slack Connect streams, writes never repeated by the client.
import { afterEach, describe, expect, it } from "vitest";
import { call, ScriptedModel, say } from "../../support/model-scripted.js";
import { APPROVE_ACTION } from "../../../src/adapters/slack/approval-message.js";
import { BOT_USER_ID, shownText } from "../../support/fake-slack.js";
import {
  actionValue,
  clickOnMessage,
  directMentionEvents,
  directMessageEvent,
  mentionEvent,
  postEvent,
  postInteraction,
} from "../../support/fake-slack-requests.js";
import { startSlackHarness, type SlackHarness } from "../../support/slack-harness.js";

let harness: SlackHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const THREAD = "1700006000.000100";

/** The approval message the run posted in `thread`, once it is there. */
async function approvalIn(h: SlackHarness, channel: string, thread: string) {
  await h.fake.waitForCall("chat.postMessage", (c) => JSON.stringify(c.args.blocks ?? []).includes(APPROVE_ACTION));
  return h.fake.threadMessages(channel, thread).find((m) => actionValue(m.blocks, APPROVE_ACTION) !== undefined)!;
}

describe("Slack as the platform behaves", () => {
  it("answers a DM that mentions the bot once, though Slack sends it as two events", async () => {
    const model = new ScriptedModel([say("Just once.")], { whenExhausted: say("A second answer.") });
    harness = await startSlackHarness({ model });
    const [mention, direct] = directMentionEvents({ text: `<@${BOT_USER_ID}> hello`, ts: THREAD });
    expect(mention.event_id).not.toBe(direct.event_id);
    await Promise.all([postEvent(harness.eventsUrl, mention), postEvent(harness.eventsUrl, direct)]);
    await harness.fake.waitForShown((text) => text === "Just once.");
    await harness.adapter.stop();
    expect(model.requests).toHaveLength(1);
    expect(harness.fake.shown((text) => text !== "").map(shownText)).toEqual(["Just once."]);
  });

  it("answers a top-level DM in its thread, where a follow-up continues the same conversation", async () => {
    const model = new ScriptedModel([say("Your number is 7."), say("You told me 7.")]);
    harness = await startSlackHarness({ model });
    await postEvent(harness.eventsUrl, directMessageEvent({ text: "remember 7", ts: THREAD }));
    const first = await harness.fake.waitForShown((text) => text === "Your number is 7.");
    expect(first).toMatchObject({ channel: "D0ALICE", thread_ts: THREAD });
    const status = harness.fake.callsTo("assistant.threads.setStatus")[0];
    expect(status?.args).toMatchObject({ channel_id: "D0ALICE", thread_ts: THREAD });

    await postEvent(harness.eventsUrl, directMessageEvent({ text: "what was my number?", ts: "1700006001.000100", thread_ts: THREAD }));
    await harness.fake.waitForShown((text) => text === "You told me 7.");
    expect(JSON.stringify(model.requests[1]?.messages)).toContain("Your number is 7.");
  });

  it("refuses a correctly signed request dated more than 5 minutes ahead", async () => {
    const model = new ScriptedModel([say("should not run")]);
    harness = await startSlackHarness({ model });
    const event = mentionEvent({ text: `<@${BOT_USER_ID}> hi`, ts: THREAD });
    expect((await postEvent(harness.eventsUrl, event, { timestamp: Math.floor(Date.now() / 1000) + 6 * 60 })).status).toBe(401);
    await harness.adapter.stop();
    expect(model.requests).toHaveLength(0);
  });

  it("addresses the streamed trace to a Slack Connect requester's own workspace", async () => {
    harness = await startSlackHarness({ model: new ScriptedModel([call("calculator", { expression: "1+1" }), say("Two.")]) });
    const event = mentionEvent({ user: "U0GUEST", text: `<@${BOT_USER_ID}> 1+1`, ts: THREAD });
    Object.assign(event.event as Record<string, unknown>, { team: "T0GUEST", user_team: "T0GUEST" });
    await postEvent(harness.eventsUrl, event);
    await harness.fake.waitForShown((text) => text === "Two.");
    expect(harness.fake.callsTo("chat.startStream")[0]?.args).toMatchObject({ recipient_team_id: "T0GUEST", recipient_user_id: "U0GUEST" });
  });

  it("tells someone outside the channel privately by DM that only the requester can approve", async () => {
    harness = await startSlackHarness({
      model: new ScriptedModel([call("post_message", { channel: "C0GENERAL", text: "hi" }), say("Posted.")]),
    });
    harness.fake.setMembers("C0GENERAL", [BOT_USER_ID, "U0ALICE"]);
    await postEvent(harness.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> say hi`, ts: THREAD }));
    const approval = await approvalIn(harness, "C0GENERAL", THREAD);
    const payload = clickOnMessage(approval, { user: "U0GUEST", actionId: APPROVE_ACTION });
    await postInteraction(harness.eventsUrl, payload);
    const note = await harness.fake.waitForCall("chat.postMessage", (c) => c.args.channel === "U0GUEST");
    expect(note.args.text).toBe("You can't decide this one. Only <@U0ALICE> can decide.");
    expect(harness.fake.callsTo("chat.postEphemeral")[0]?.error).toBe("user_not_in_channel");
  });

  it("posts an approved write once even when Slack fails the request on the way, and says what happened", async () => {
    const model = new ScriptedModel([
      call("post_message", { channel: "C0RANDOM", text: "deploy done" }),
      say("I could not confirm the post."),
    ]);
    harness = await startSlackHarness({ model });
    await postEvent(harness.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> announce`, ts: THREAD }));
    const approval = await approvalIn(harness, "C0GENERAL", THREAD);
    harness.fake.fail("chat.postMessage", { status: 500 });
    await postInteraction(harness.eventsUrl, clickOnMessage(approval, { user: "U0ALICE", actionId: APPROVE_ACTION }));
    await harness.fake.waitForShown((text) => text === "I could not confirm the post.");
    expect(harness.fake.callsTo("chat.postMessage").filter((c) => c.args.channel === "C0RANDOM")).toHaveLength(1);
    expect(JSON.stringify(model.requests[1]?.messages)).toContain("HTTP 500");
  });
});
