// Where Stop is on Slack, end to end through Bolt over HTTP: a run shows it as a message of its
// own in the run's thread, deleted once the run stopped. Who may stop a run, how fast and what it
// says are the surfaces' contract (test/adapters/surface-contract-stop.test.ts); the button inside
// a trace message that Slack would not stream is in stop-trace.test.ts.
import { afterEach, describe, expect, it } from "vitest";
import { ScriptedModel, say } from "../../support/model-scripted.js";
import { STOP_ACTION } from "../../../src/adapters/slack/slack-working.js";
import { BOT_USER_ID, type RecordedCall } from "../../support/fake-slack.js";
import { blockActionPayload, mentionEvent, postEvent, postInteraction } from "../../support/fake-slack-requests.js";
import { gatedModel, startSlackHarness, type SlackHarness } from "../../support/slack-harness.js";

let harness: SlackHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const THREAD = "1700008000.000100";

async function startStuckRun(): Promise<{ h: SlackHarness; button: RecordedCall; runId: string }> {
  const h = await startSlackHarness({ model: gatedModel(new ScriptedModel([say("never")])) });
  await postEvent(h.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> think forever`, ts: THREAD }));
  const button = await h.fake.waitForCall("chat.postMessage", (c) => JSON.stringify(c.args.blocks ?? []).includes(STOP_ACTION));
  expect(button.args.thread_ts).toBe(THREAD);
  const runId = (button.args.blocks as Array<{ accessory: { value: string } }>)[0]!.accessory.value;
  return { h, button, runId };
}

function clickStop(h: SlackHarness, user: string, runId: string) {
  const ts = h.fake.threadMessages("C0GENERAL", THREAD).find((m) => JSON.stringify(m.blocks ?? []).includes(STOP_ACTION))?.ts ?? "1.1";
  return postInteraction(
    h.eventsUrl,
    blockActionPayload({ user, actionId: STOP_ACTION, value: runId, channel: "C0GENERAL", messageTs: ts, threadTs: THREAD }),
  );
}

describe("Slack Stop", () => {
  it("shows Stop in the run's thread as a message of its own, deleted once the requester stopped the run", async () => {
    const { h, runId } = await startStuckRun();
    harness = h;
    expect((await clickStop(h, "U0ALICE", runId)).status).toBe(200);
    const line = await h.fake.waitForCall("chat.postMessage", (c) => String(c.args.text).includes("Stopped by u0alice."));
    expect(line.args.thread_ts).toBe(THREAD);
    await h.fake.waitForCall("chat.delete");
    expect(h.fake.threadMessages("C0GENERAL", THREAD).some((m) => JSON.stringify(m.blocks ?? []).includes(STOP_ACTION))).toBe(false);
  });
});
