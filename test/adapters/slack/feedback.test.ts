// Slack's own part of 👍 / 👎, end to end through Bolt over HTTP: the buttons follow the answer in
// its thread; a vote keeps Slack's conversation and a link to the answer, and is logged with the
// totals; 👎 opens a modal whose comment joins the vote; `@bot feedback` links each vote's thread.
// A vote thanked and kept, and who may list them, are the surfaces' contract
// (test/adapters/surface-contract-feedback.test.ts).
import { afterEach, describe, expect, it } from "vitest";
import { call, ScriptedModel, say } from "../../support/model-scripted.js";
import { FEEDBACK_DOWN_ACTION, FEEDBACK_MODAL, FEEDBACK_UP_ACTION } from "../../../src/adapters/slack/feedback-buttons.js";
import { BOT_USER_ID } from "../../support/fake-slack.js";
import { blockActionPayload, mentionEvent, postEvent, postInteraction, viewSubmissionPayload } from "../../support/fake-slack-requests.js";
import { startSlackHarness, type SlackHarness } from "../../support/slack-harness.js";
import { until } from "../../support/until.js";

let harness: SlackHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const THREAD = "1700009000.000100";

async function answerWithButtons(h: SlackHarness) {
  await postEvent(h.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> hi`, ts: THREAD }));
  const posted = await h.fake.waitForCall("chat.postMessage", (c) => JSON.stringify(c.args.blocks ?? []).includes(FEEDBACK_UP_ACTION));
  expect(posted.args.thread_ts).toBe(THREAD);
  const message = h.fake.threadMessages("C0GENERAL", THREAD).find((m) => JSON.stringify(m.blocks ?? []).includes(FEEDBACK_UP_ACTION))!;
  const value = (posted.args.blocks as Array<{ elements: Array<{ value: string }> }>)[0]!.elements[0]!.value;
  return { ts: message.ts, value };
}

const click = (h: SlackHarness, user: string, actionId: string, at: { ts: string; value: string }) =>
  postInteraction(
    h.eventsUrl,
    blockActionPayload({ user, actionId, value: at.value, channel: "C0GENERAL", messageTs: at.ts, threadTs: THREAD }),
  );

describe("Slack feedback", () => {
  it("keeps a 👍 with Slack's conversation and a link to the answer's message, and logs the totals", async () => {
    harness = await startSlackHarness({ model: new ScriptedModel([say("Hello.")]) });
    const buttons = await answerWithButtons(harness);
    await click(harness, "U0ALICE", FEEDBACK_UP_ACTION, buttons);
    await harness.fake.waitForCall("chat.postEphemeral", (c) => c.args.text === "Thanks for the feedback.");
    const [entry] = await harness.service.feedback.recent(5);
    expect(entry).toMatchObject({
      surface: "slack",
      conversationKey: `slack:T0TEAM:C0GENERAL:${THREAD}`,
      person: { id: "U0ALICE" },
      rating: "up",
      guard: "none",
      link: `https://fake.slack/archives/C0GENERAL/p${buttons.ts.replace(".", "")}`,
    });
    expect(entry!.runId.length).toBeGreaterThan(0);
    expect(
      harness.logs.some((line) => line.msg === "feedback" && JSON.stringify(line.feedback) === JSON.stringify({ up: 1, down: 0 })),
    ).toBe(true);
  });

  it("opens a modal on 👎 whose comment joins the vote", async () => {
    const runaway = (request: { tools: readonly unknown[] }) =>
      request.tools.length === 0 ? say("Summary: stuck.") : call("calculator", { expression: "1+1" });
    harness = await startSlackHarness({ model: new ScriptedModel([], { whenExhausted: runaway }) });
    const buttons = await answerWithButtons(harness);
    await click(harness, "U0BOB", FEEDBACK_DOWN_ACTION, buttons);
    const opened = await harness.fake.waitForCall("views.open");
    const view = opened.args.view as { callback_id: string; private_metadata: string };
    expect(view.callback_id).toBe(FEEDBACK_MODAL);
    // A person types for a while: the vote is stored by the time the form is sent.
    await until(() => harness!.logs.some((line) => line.msg === "feedback"), "the vote in the log");
    const submitted = viewSubmissionPayload({
      user: "U0BOB",
      callbackId: FEEDBACK_MODAL,
      privateMetadata: view.private_metadata,
      values: { comment: { comment_text: { type: "plain_text_input", value: "It looped <!channel>." } } },
    });
    expect((await postInteraction(harness.eventsUrl, submitted)).status).toBe(200);
    await harness.adapter.stop();
    const [entry] = await harness.service.feedback.recent(5);
    expect(entry).toMatchObject({ person: { id: "U0BOB" }, rating: "down", guard: "repeat", comment: "It looped <!channel>." });
  });

  it("lists the last votes for an approver with a link to each thread", async () => {
    harness = await startSlackHarness({ model: new ScriptedModel([say("Hello.")]), env: { SLACK_APPROVERS: "U0BOSS" } });
    const buttons = await answerWithButtons(harness);
    await click(harness, "U0ALICE", FEEDBACK_UP_ACTION, buttons);
    await harness.fake.waitForCall("chat.postEphemeral", (c) => c.args.text === "Thanks for the feedback.");

    await postEvent(harness.eventsUrl, mentionEvent({ user: "U0BOSS", text: `<@${BOT_USER_ID}> feedback`, ts: "1700009002.000100" }));
    const listing = await harness.fake.waitForCall("chat.postEphemeral", (c) => c.args.user === "U0BOSS");
    expect(listing.args.text).toContain("Feedback so far: 👍 1 · 👎 0.");
    expect(listing.args.text).toContain(
      `👍 <@U0ALICE> · <https://fake.slack/archives/C0GENERAL/p${buttons.ts.replace(".", "")}|thread> · answered`,
    );
  });
});
