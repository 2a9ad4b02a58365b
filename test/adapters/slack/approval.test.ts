// Slack's own part of an approval, end to end over HTTP with the real service: a click whose
// button value it can't read. Who may decide, exactly-once writes, restarts and expiry are the
// surfaces' contract (test/adapters/surface-contract-approvals.test.ts), run on Slack there.
import { afterEach, describe, expect, it } from "vitest";
import { call, ScriptedModel, say } from "../../support/model-scripted.js";
import { APPROVE_ACTION } from "../../../src/adapters/slack/approval-message.js";
import { BOT_USER_ID, type RecordedCall } from "../../support/fake-slack.js";
import { blockActionPayload, mentionEvent, postEvent, postInteraction } from "../../support/fake-slack-requests.js";
import { startSlackHarness, type SlackHarness } from "../../support/slack-harness.js";

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
  it("answers a click it cannot read with an ephemeral note", async () => {
    harness = await startSlackHarness({ model: postingModel() });
    const approval = await askToPost(harness);
    await click(harness, { ...approval, value: "not json" }, "U0ALICE");
    const ephemeral = await harness.fake.waitForCall("chat.postEphemeral");
    expect(ephemeral.args.text).toContain("could not read this button");
    expect(postsToRandom(harness)).toHaveLength(0);
  });
});
