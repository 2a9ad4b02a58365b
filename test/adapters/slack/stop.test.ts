// The Stop button on Slack, end to end through Bolt over HTTP: a run shows it in its thread; the
// requester's click ends a run whose model call hangs with the summary and "Stopped by <name>."
// within 2 s, and the button goes away; anyone else is told privately and nothing stops.
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
  it("stops a run whose model call hangs when the requester clicks, with the summary and who stopped it", async () => {
    const { h, runId } = await startStuckRun();
    harness = h;
    const clicked = performance.now();
    expect((await clickStop(h, "U0ALICE", runId)).status).toBe(200);
    const line = await h.fake.waitForCall("chat.postMessage", (c) => String(c.args.text).includes("Stopped by u0alice."));
    expect(performance.now() - clicked).toBeLessThan(2_000);
    expect(line.args.thread_ts).toBe(THREAD);
    await h.fake.waitForCall("chat.delete");
    expect(h.fake.threadMessages("C0GENERAL", THREAD).some((m) => JSON.stringify(m.blocks ?? []).includes(STOP_ACTION))).toBe(false);
  });

  it("tells anyone else privately that only the requester or an approver can stop it", async () => {
    const { h, runId } = await startStuckRun();
    harness = h;
    await clickStop(h, "U0MALLORY", runId);
    const note = await h.fake.waitForCall("chat.postEphemeral");
    expect(note.args).toMatchObject({ user: "U0MALLORY", text: "Only <@U0ALICE> or an approver can stop this run." });
    expect(h.fake.callsTo("chat.postMessage").some((c) => String(c.args.text).includes("Stopped by"))).toBe(false);
    await clickStop(h, "U0ALICE", runId);
    await h.fake.waitForCall("chat.postMessage", (c) => String(c.args.text).includes("Stopped by u0alice."));
  });

  it("lets an approver stop someone else's run", async () => {
    const h = await startSlackHarness({ model: gatedModel(new ScriptedModel([say("never")])), env: { SLACK_APPROVERS: "U0BOSS" } });
    harness = h;
    await postEvent(h.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> think forever`, ts: THREAD }));
    const button = await h.fake.waitForCall("chat.postMessage", (c) => JSON.stringify(c.args.blocks ?? []).includes(STOP_ACTION));
    await clickStop(h, "U0BOSS", (button.args.blocks as Array<{ accessory: { value: string } }>)[0]!.accessory.value);
    await h.fake.waitForCall("chat.postMessage", (c) => String(c.args.text).includes("Stopped by u0boss."));
  });
});
