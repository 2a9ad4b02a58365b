// Slack's message_changed and message_deleted as the bot reads them: what is an edit, what is
// nothing (the bot's own messages, a change that leaves the text, a malformed event), and a
// redelivered edit or deletion (Slack retries one it did not hear an ack for) that does nothing twice.
import { describe, expect, it } from "vitest";
import { changeOf } from "../../../src/adapters/slack/message-changes.js";
import { BOT_USER_ID } from "../../support/fake-slack.js";
import { mentionEvent, messageChangedEvent, messageDeletedEvent, postEvent } from "../../support/fake-slack-requests.js";
import { heldModel } from "../../support/held-model.js";
import { call, say, ScriptedModel, type ScriptStep } from "../../support/model-scripted.js";
import { usePerTest } from "../../support/per-test.js";
import { startSlackHarness } from "../../support/slack-harness.js";
import { until } from "../../support/until.js";

const perTest = usePerTest();
const edited = (fields: Partial<Parameters<typeof messageChangedEvent>[0]> = {}) =>
  messageChangedEvent({ ts: "1700000001.000100", text: "now", previousText: "before", editedTs: "1700000009.000100", ...fields });

describe("Slack message changes, read", () => {
  it("an edit names the message, the edit itself, and whether it adds a mention of the bot", () => {
    const change = changeOf(edited({ text: `<@${BOT_USER_ID}> now`, thread_ts: "1700000000.000100" }), BOT_USER_ID);
    expect(change).toMatchObject({
      kind: "edit",
      edit: {
        receipt: "C0GENERAL:1700000001.000100",
        editReceipt: "C0GENERAL:1700000001.000100:edited:1700000009.000100",
        text: "now",
        addsMention: true,
        at: { origin: { conversationKey: "slack:T0TEAM:C0GENERAL:1700000000.000100" } },
      },
    });
    expect(changeOf(edited({ text: `<@${BOT_USER_ID}> now`, previousText: `<@${BOT_USER_ID}> before` }), BOT_USER_ID)).toMatchObject({
      edit: { addsMention: false },
    });
  });

  it.each([
    ["the text is unchanged (an unfurl, a language tag)", edited({ text: "same", previousText: "same" })],
    ["the bot's own message", edited({ user: BOT_USER_ID })],
  ])("is nothing when %s", (_why, body) => {
    expect(changeOf(body, BOT_USER_ID)).toMatchObject({ kind: "ignore" });
  });

  it("a malformed change is nothing, and a new message is no change at all", () => {
    expect(changeOf({ event: { type: "message", subtype: "message_changed", channel: "C1" } }, BOT_USER_ID)).toMatchObject({
      kind: "ignore",
    });
    expect(changeOf(mentionEvent({ text: "hi", ts: "1700000001.000100" }), BOT_USER_ID)).toBeUndefined();
  });

  it("a deletion names the deleted message; the bot's own is nothing", () => {
    const deleted = messageDeletedEvent({ ts: "1700000001.000100", text: "x", deletedAt: "1700000009.000100" });
    expect(changeOf(deleted, BOT_USER_ID)).toEqual({ kind: "deletion", deletion: { receipt: "C0GENERAL:1700000001.000100" } });
    expect(changeOf(messageDeletedEvent({ ts: "1", text: "x", deletedAt: "2", user: BOT_USER_ID }), BOT_USER_ID)).toMatchObject({
      kind: "ignore",
    });
  });
});

const twoSteps: ScriptStep = (request) =>
  request.messages.some((message) => message.role === "tool") ? say("Done.") : call("calculator", { expression: "1+1" });

describe("Slack message changes, redelivered", () => {
  it("an edit delivered twice reaches the run once; a deletion delivered twice drops once", async () => {
    const scripted = new ScriptedModel([], { whenExhausted: twoSteps });
    const model = heldModel(scripted);
    const h = perTest.closeAfter(await startSlackHarness({ model }));
    const ts = h.fake.nextTs();
    h.fake.addMessage({ channel: "C0GENERAL", ts, user: "U0ALICE", text: `<@${BOT_USER_ID}> summarise #releases` });
    await postEvent(h.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> summarise #releases`, ts }));
    await model.reached(0);
    const edit = messageChangedEvent({
      ts,
      text: `<@${BOT_USER_ID}> summarise #deploys`,
      previousText: `<@${BOT_USER_ID}> summarise #releases`,
      editedTs: h.fake.nextTs(),
    });
    expect((await postEvent(h.eventsUrl, edit)).status).toBe(200);
    expect((await postEvent(h.eventsUrl, edit, { retryNum: 1 })).status).toBe(200);
    // A second question in the thread, waiting behind the run, deleted: the redelivery finds it dropped already.
    const queued = h.fake.nextTs();
    await postEvent(h.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> and this`, ts: queued, thread_ts: ts }));
    const deletion = messageDeletedEvent({ ts: queued, thread_ts: ts, text: "and this", deletedAt: h.fake.nextTs() });
    expect((await postEvent(h.eventsUrl, deletion)).status).toBe(200);
    expect((await postEvent(h.eventsUrl, deletion, { retryNum: 1 })).status).toBe(200);
    model.releaseAll();
    await until(() => scripted.requests.length === 2, "the run's second call", 10_000);
    const edits = scripted.requests[1]!.messages.filter(
      (message) => message.content === "The person edited their question to: summarise #deploys",
    );
    expect(edits).toHaveLength(1);
    const deletions = h.logs.filter((log) => log.msg === "a message was deleted").map((log) => (log as { result?: string }).result);
    expect(deletions).toEqual(["dropped", "ignored"]);
    expect(
      h.logs.filter((log) => log.msg === "a message was edited").map((log) => (log as { result?: { kind: string } }).result?.kind),
    ).toEqual(["for_run", "ignored"]);
  });
});
