// Slack's app_context_changed: what a person looks at while the agent container is open becomes a
// note on their next question in the DM; an empty context clears it; a question elsewhere has none.
import { describe, expect, it } from "vitest";
import { viewingOf } from "../../../src/adapters/slack/app-context.js";
import type { ModelRequest } from "../../../src/contracts/types.js";
import { appContextChangedEvent, directMessageEvent, mentionEvent, postEvent } from "../../support/fake-slack-requests.js";
import { BOT_USER_ID } from "../../support/fake-slack.js";
import { say, ScriptedModel } from "../../support/model-scripted.js";
import { usePerTest } from "../../support/per-test.js";
import { startSlackHarness } from "../../support/slack-harness.js";
import { until } from "../../support/until.js";

const perTest = usePerTest();
const notes = (request: ModelRequest) =>
  request.messages.filter((message) => message.role === "system" && String(message.content).includes("is viewing")).map((m) => m.content);

describe("Slack app_context_changed", () => {
  it("reads the most relevant entity it knows, and nothing from a malformed event", () => {
    const body = appContextChangedEvent({
      entities: [
        { type: "slack#/types/thread_ts", value: "1700000000.000100" },
        { type: "slack#/types/message_context", value: { channel_id: "C0RELEASES", message_ts: "1700000001.000200" } },
        { type: "slack#/types/channel_id", value: "C0RELEASES" },
      ],
    });
    expect(viewingOf(body)).toEqual({
      person: { id: "U0ALICE" },
      workspace: "T0TEAM",
      viewing: "a message in <#C0RELEASES> (ts 1700000001.000200)",
    });
    expect(viewingOf(appContextChangedEvent({ entities: [{ type: "slack#/types/channel_id", value: "<!here>" }] }))).toEqual({
      person: { id: "U0ALICE" },
      workspace: "T0TEAM",
    });
    expect(viewingOf({ event: { type: "app_context_changed" } })).toBeUndefined();
  });

  it("the person's next question in the DM says what they are viewing; an empty context clears it; a channel question has none", async () => {
    const model = new ScriptedModel([], { whenExhausted: say("ok") });
    const h = perTest.closeAfter(await startSlackHarness({ model }));
    await postEvent(h.eventsUrl, appContextChangedEvent({ entities: [{ type: "slack#/types/channel_id", value: "C0RELEASES" }] }));
    await postEvent(h.eventsUrl, directMessageEvent({ text: "summarise this", ts: "1700600001.000100" }));
    await until(() => model.requests.length === 1, "the DM's run");
    expect(notes(model.requests[0]!)).toEqual(["As they ask, the person is viewing the channel <#C0RELEASES> in Slack."]);

    await postEvent(h.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> summarise this`, ts: "1700600002.000100" }));
    await until(() => model.requests.length === 2, "the channel's run");
    expect(notes(model.requests[1]!)).toEqual([]);

    await postEvent(h.eventsUrl, appContextChangedEvent({}));
    await postEvent(h.eventsUrl, directMessageEvent({ text: "and now?", ts: "1700600003.000100" }));
    await until(() => model.requests.length === 3, "the next DM's run");
    expect(notes(model.requests[2]!)).toEqual([]);
  });
});
