// post_message through the approval buttons, end to end over HTTP with the real service:
// who may decide, exactly-once posting, restarts, expiry.
import { afterEach, describe, expect, it } from "vitest";
import { call, ScriptedModel, say } from "../../support/model-scripted.js";
import { APPROVE_ACTION, DENY_ACTION } from "../../../src/adapters/slack/approval-message.js";
import { BOT_USER_ID, type RecordedCall } from "../../support/fake-slack.js";
import { blockActionPayload, mentionEvent, postEvent, postInteraction } from "../../support/fake-slack-requests.js";
import { startSlackHarness, type SlackHarness } from "../../support/slack-harness.js";
import { failingResumes } from "../../support/failing-queue.js";

let harness: SlackHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const THREAD = "1700001000.000100";

function postingModel() {
  return new ScriptedModel(
    [call("post_message", { channel: "C0RANDOM", text: "Standup moved to 10:30 <!here>" }, "call_post"), say("Done, it is posted.")],
    {
      whenExhausted: say("Okay, I did not post it."),
    },
  );
}

interface ApprovalMessage {
  readonly ts: string;
  readonly value: string;
  readonly blocks: unknown[];
}

async function askToPost(h: SlackHarness): Promise<ApprovalMessage> {
  await postEvent(h.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> tell #random the standup moved`, ts: THREAD }));
  const posted = await h.fake.waitForCall(
    "chat.postMessage",
    (c) => Array.isArray(c.args.blocks) && JSON.stringify(c.args.blocks).includes(APPROVE_ACTION),
  );
  const message = h.fake.threadMessages("C0GENERAL", THREAD).find((m) => JSON.stringify(m.blocks ?? []).includes(APPROVE_ACTION))!;
  const actions = (posted.args.blocks as Array<{ type: string; elements?: Array<{ value?: string }> }>).find((b) => b.type === "actions")!;
  return { ts: message.ts, value: actions.elements![0]!.value!, blocks: message.blocks ?? [] };
}

function click(h: SlackHarness, approval: ApprovalMessage, user: string, actionId = APPROVE_ACTION) {
  return postInteraction(
    h.eventsUrl,
    blockActionPayload({
      user,
      actionId,
      value: approval.value,
      channel: "C0GENERAL",
      messageTs: approval.ts,
      threadTs: THREAD,
      blocks: approval.blocks,
    }),
  );
}

const postsToRandom = (h: SlackHarness): RecordedCall[] => h.fake.callsTo("chat.postMessage").filter((c) => c.args.channel === "C0RANDOM");

describe("Slack approvals", () => {
  it("shows the call with buttons, and posts once when the requester approves", async () => {
    harness = await startSlackHarness({ model: postingModel() });
    const approval = await askToPost(harness);
    expect(JSON.stringify(approval.blocks)).toContain("post_message");
    expect(JSON.stringify(approval.blocks)).toContain("Standup moved to 10:30");
    expect(postsToRandom(harness)).toHaveLength(0);

    expect((await click(harness, approval, "U0ALICE")).status).toBe(200);
    await harness.fake.waitForCall("chat.postMessage", (c) => c.args.text === "Done, it is posted.");
    const posts = postsToRandom(harness);
    expect(posts).toHaveLength(1);
    expect(posts[0]!.args.text).toBe("Standup moved to 10:30 @\u2060here");

    const settled = harness.fake.message("C0GENERAL", approval.ts)!;
    expect(JSON.stringify(settled.blocks)).toContain("Approved by <@U0ALICE>");
    expect(JSON.stringify(settled.blocks)).not.toContain(APPROVE_ACTION);
  });

  it("tells the requester their approval is recorded when the run can't go on at once, and goes on when the queue is back", async () => {
    let queue: ReturnType<typeof failingResumes> | undefined;
    harness = await startSlackHarness({ model: postingModel(), wrapQueue: (inner) => (queue = failingResumes(inner, 6)) });
    const approval = await askToPost(harness);
    expect((await click(harness, approval, "U0ALICE")).status).toBe(200);
    const note = await harness.fake.waitForCall("chat.postEphemeral", (c) => String(c.args.text).includes("recorded"));
    expect(note.args).toMatchObject({ user: "U0ALICE", channel: "C0GENERAL" });
    expect(note.args.text).toMatch(/no need to click again/);
    expect(JSON.stringify(harness.fake.message("C0GENERAL", approval.ts)!.blocks)).toContain("Approved by <@U0ALICE>");
    await harness.fake.waitForCall("chat.postMessage", (c) => c.args.text === "Done, it is posted.", 15_000);
    expect(queue!.refused).toBe(6);
    expect(postsToRandom(harness)).toHaveLength(1);
  });

  it("tells anyone else only the requester can approve, and runs nothing", async () => {
    harness = await startSlackHarness({ model: postingModel() });
    const approval = await askToPost(harness);
    await click(harness, approval, "U0MALLORY");
    const ephemeral = await harness.fake.waitForCall("chat.postEphemeral");
    expect(ephemeral.args).toMatchObject({
      channel: "C0GENERAL",
      user: "U0MALLORY",
      text: "You can't decide this one. Only <@U0ALICE> can decide.",
    });
    expect(postsToRandom(harness)).toHaveLength(0);
    expect(JSON.stringify(harness.fake.message("C0GENERAL", approval.ts)!.blocks)).toContain(APPROVE_ACTION);
  });

  it("names approvers in the refusal when SLACK_APPROVERS is set", async () => {
    harness = await startSlackHarness({ model: postingModel(), env: { SLACK_APPROVERS: "U0BOSS" } });
    const approval = await askToPost(harness);
    await click(harness, approval, "U0MALLORY");
    const ephemeral = await harness.fake.waitForCall("chat.postEphemeral");
    expect(ephemeral.args).toMatchObject({
      user: "U0MALLORY",
      text: "You can't decide this one. Only <@U0ALICE> or <@U0BOSS> can decide.",
    });
    expect(postsToRandom(harness)).toHaveLength(0);
  });

  it("lets a configured approver decide for the requester", async () => {
    harness = await startSlackHarness({ model: postingModel(), env: { SLACK_APPROVERS: "U0BOSS" } });
    const approval = await askToPost(harness);
    await click(harness, approval, "U0BOSS");
    await harness.fake.waitForCall("chat.postMessage", (c) => c.args.text === "Done, it is posted.");
    expect(postsToRandom(harness)).toHaveLength(1);
  });

  it("posts once when the button is clicked twice at the same time", async () => {
    harness = await startSlackHarness({ model: postingModel() });
    const approval = await askToPost(harness);
    const responses = await Promise.all([click(harness, approval, "U0ALICE"), click(harness, approval, "U0ALICE")]);
    expect(responses.map((r) => r.status)).toEqual([200, 200]);
    const ephemeral = await harness.fake.waitForCall("chat.postEphemeral");
    expect(ephemeral.args.text).toBe("This was already approved by <@U0ALICE>.");
    await harness.fake.waitForCall("chat.postMessage", (c) => c.args.text === "Done, it is posted.");
    await harness.adapter.stop();
    expect(postsToRandom(harness)).toHaveLength(1);
  });

  it("works after a restart between the buttons and the click", async () => {
    harness = await startSlackHarness({ model: postingModel() });
    const approval = await askToPost(harness);
    await harness.restart();
    await click(harness, approval, "U0ALICE");
    await harness.fake.waitForCall("chat.postMessage", (c) => c.args.text === "Done, it is posted.");
    expect(postsToRandom(harness)).toHaveLength(1);
  });

  it("runs nothing when the requester denies, and says who denied", async () => {
    harness = await startSlackHarness({ model: postingModel() });
    const approval = await askToPost(harness);
    await click(harness, approval, "U0ALICE", DENY_ACTION);
    await harness.fake.waitForCall("chat.update", (c) => JSON.stringify(c.args.blocks).includes("Denied by <@U0ALICE>"));
    await harness.adapter.stop();
    expect(postsToRandom(harness)).toHaveLength(0);
  });

  it("turns an approval nobody decided into an expired message and a summary", async () => {
    let now = Date.now();
    harness = await startSlackHarness({ model: postingModel(), clock: () => now, env: { APPROVAL_TIMEOUT_MS: "60000" } });
    const approval = await askToPost(harness);
    now += 61_000;
    expect(await harness.service.sweepExpiredApprovals()).toBe(1);
    await harness.fake.waitForCall("chat.update", (c) => c.args.ts === approval.ts && JSON.stringify(c.args.blocks).includes("Expired"));
    const settled = harness.fake.message("C0GENERAL", approval.ts)!;
    expect(JSON.stringify(settled.blocks)).not.toContain(APPROVE_ACTION);
    const guardLine = await harness.fake.waitForCall(
      "chat.postMessage",
      (c) => c.args.thread_ts === THREAD && JSON.stringify(c.args.blocks ?? []).includes("context"),
    );
    expect(guardLine.args.channel).toBe("C0GENERAL");
    expect(postsToRandom(harness)).toHaveLength(0);
  });

  it("answers a click on an expired approval with the summary", async () => {
    let now = Date.now();
    harness = await startSlackHarness({ model: postingModel(), clock: () => now, env: { APPROVAL_TIMEOUT_MS: "60000" } });
    const approval = await askToPost(harness);
    now += 61_000;
    await click(harness, approval, "U0ALICE");
    await harness.fake.waitForCall("chat.update", (c) => c.args.ts === approval.ts && JSON.stringify(c.args.blocks).includes("Expired"));
    await harness.adapter.stop();
    expect(postsToRandom(harness)).toHaveLength(0);
  });

  it("answers a click it cannot read with an ephemeral note", async () => {
    harness = await startSlackHarness({ model: postingModel() });
    const approval = await askToPost(harness);
    await click(harness, { ...approval, value: "not json" }, "U0ALICE");
    const ephemeral = await harness.fake.waitForCall("chat.postEphemeral");
    expect(ephemeral.args.text).toContain("could not read this button");
    expect(postsToRandom(harness)).toHaveLength(0);
  });
});
