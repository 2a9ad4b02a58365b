// What Slack hears when the bot can't take a request, through the real Bolt app: a message that
// could not be recorded (the queue refused it, as BullMQ does while Redis restarts) is not
// acknowledged (HTTP 503, no Socket Mode ack) and nobody is told anything, so Slack's retry is
// what gets answered, once; a signed payload Bolt can't read gets 400 at once; a body over the
// endpoint's limit gets 413 before its signature is looked at.
import { afterEach, describe, expect, it } from "vitest";
import { ScriptedModel, say } from "../../support/model-scripted.js";
import type { WorkQueue } from "../../../src/runs/queue/work-queue.js";
import { BOT_USER_ID } from "../../support/fake-slack.js";
import { mentionEvent, postEvent, sign } from "../../support/fake-slack-requests.js";
import { startSlackHarness, type SlackHarness } from "../../support/slack-harness.js";
import { until } from "../../support/until.js";

let harness: SlackHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** The queue refuses the first `times` messages' runs (the intake record is written, the queueing fails). */
function refusingRuns(times: number): (queue: WorkQueue) => WorkQueue {
  let left = times;
  return (inner) => ({
    add: async (item, options) => {
      if (item.kind === "run" && left-- > 0) throw new Error("Connection is closed.");
      return inner.add(item, options);
    },
    start: (handler, concurrency) => inner.start(handler, concurrency),
    depth: () => inner.depth(),
    close: (graceMs) => inner.close(graceMs),
  });
}

const posted = (h: SlackHarness) => h.fake.callsTo("chat.postMessage").map((call) => String(call.args.text ?? ""));
const said = (h: SlackHarness) => ({
  answers: posted(h).filter((text) => text === "the answer").length,
  storageTrouble: posted(h).filter((text) => text.includes("storage")).length,
});

describe("a message the bot could not record", () => {
  it("over HTTP: answered 503 with nothing said; Slack's retry is recorded and answered once", async () => {
    const model = new ScriptedModel([say("the answer")], { whenExhausted: say("a second answer") });
    harness = await startSlackHarness({ model, wrapQueue: refusingRuns(1) });
    const event = mentionEvent({ text: `<@${BOT_USER_ID}> hello`, ts: "1700007000.000100" });

    const first = await postEvent(harness.eventsUrl, event);
    expect(first.status).toBe(503);
    expect(posted(harness)).toEqual([]);
    expect((await postEvent(harness.eventsUrl, event, { retryNum: 1, retryReason: "http_error" })).status).toBe(200);
    await harness.fake.waitForCall("chat.postMessage", (call) => call.args.text === "the answer");
    await harness.adapter.stop();

    expect(said(harness)).toEqual({ answers: 1, storageTrouble: 0 });
    expect(model.requests).toHaveLength(1);
    expect(harness.logs.filter((line) => /not acknowledged within/.test(String(line.msg)))).toEqual([]);
  });

  it("in Socket Mode: not acknowledged, with nothing said; the redelivered envelope is acknowledged and answered once", async () => {
    const model = new ScriptedModel([say("the answer")], { whenExhausted: say("a second answer") });
    harness = await startSlackHarness({ model, mode: "socket", wrapQueue: refusingRuns(1) });
    const event = mentionEvent({ text: `<@${BOT_USER_ID}> hello`, ts: "1700007100.000100" });

    const first = harness.fake.sendEnvelope("events_api", event);
    await until(
      () => harness!.logs.some((line) => /not acknowledged, so that Slack delivers it again/.test(String(line.msg))),
      "the refusal",
    );
    expect(harness.fake.acks.map((ack) => ack.envelopeId)).not.toContain(first);
    await harness.fake.waitForAck(harness.fake.sendEnvelope("events_api", event, { retryAttempt: 1, retryReason: "timeout" }));
    await harness.fake.waitForCall("chat.postMessage", (call) => call.args.text === "the answer");
    await harness.adapter.stop();

    expect(harness.fake.acks.map((ack) => ack.envelopeId)).not.toContain(first);
    expect(said(harness)).toEqual({ answers: 1, storageTrouble: 0 });
    expect(model.requests).toHaveLength(1);
  });
});

describe("requests Bolt can't take", () => {
  const signedForm = (payload: unknown) => {
    const body = `payload=${encodeURIComponent(JSON.stringify(payload))}`;
    const timestamp = Math.floor(Date.now() / 1000);
    return {
      method: "POST",
      headers: {
        "Content-Type": "application/x-www-form-urlencoded",
        "X-Slack-Request-Timestamp": String(timestamp),
        "X-Slack-Signature": sign(body, timestamp),
      },
      body,
    };
  };

  it("a signed click of a shape Slack never sends: 400 at once, and no 'not acknowledged' error later", async () => {
    harness = await startSlackHarness({ model: new ScriptedModel([], { whenExhausted: say("no") }) });
    for (const payload of [{ type: "block_actions", actions: [{}] }, { type: "view_submission" }, { type: "shortcut" }]) {
      const response = await fetch(harness.eventsUrl, signedForm(payload));
      expect({ payload, status: response.status }).toEqual({ payload, status: 400 });
    }
    // Bolt's own timer would have fired by now (3 s) had the requests been left unacknowledged.
    await new Promise((resolve) => setTimeout(resolve, 3_500));
    expect(harness.logs.filter((line) => Number(line.level) >= 50).map((line) => line.msg)).toEqual([]);
  });

  it("a body over the endpoint's limit: 413, whatever its signature", async () => {
    harness = await startSlackHarness({ model: new ScriptedModel([], { whenExhausted: say("no") }) });
    const body = Buffer.alloc(3 * 1024 * 1024, 0x61);
    const response = await fetch(harness.eventsUrl, { method: "POST", headers: { "Content-Type": "application/json" }, body });
    expect(response.status).toBe(413);
    // The port goes on answering: the next event is taken.
    expect(
      (await postEvent(harness.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> still there?`, ts: "1700007000.000100" }))).status,
    ).toBe(200);
  });
});
