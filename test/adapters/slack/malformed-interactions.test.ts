// Signed interactions that are not what the bot's buttons and forms send (fields missing, of the
// wrong type, far too long), through Bolt and the real adapter: each is answered without a server
// error (acknowledged, or refused by Bolt where it can't tell the listener: no action, no user),
// leaves a warning in the log, and rejects nothing where nobody listens; the bot answers on.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUTTON_ACTIONS } from "../../../src/adapters/slack/slack-clicks.js";
import { FEEDBACK_MODAL } from "../../../src/adapters/slack/feedback-buttons.js";
import { FORM_CARD } from "../../../src/adapters/slack/form-message.js";
import { HELD_CARD } from "../../../src/adapters/slack/held-message.js";
import { FORM_MODAL } from "../../../src/adapters/slack/form-modal.js";
import { BOT_USER_ID, shownText } from "../../support/fake-slack.js";
import { blockActionPayload, mentionEvent, postEvent, postInteraction, viewSubmissionPayload } from "../../support/fake-slack-requests.js";
import { ScriptedModel, say } from "../../support/model-scripted.js";
import { startSlackHarness, type SlackHarness } from "../../support/slack-harness.js";

const THREAD = "1700008100.000100";
const HUGE = "a".repeat(200_000);

let harness: SlackHarness;
const unhandled: unknown[] = [];
const noteUnhandled = (reason: unknown) => void unhandled.push(reason);
beforeAll(async () => {
  process.on("unhandledRejection", noteUnhandled);
  harness = await startSlackHarness({ model: new ScriptedModel([], { whenExhausted: say("Still here.") }) });
});
afterAll(async () => {
  await harness.close();
  process.off("unhandledRejection", noteUnhandled);
});

const click = (actionId: string) =>
  blockActionPayload({ user: "U0ALICE", actionId, value: "x", channel: "C0GENERAL", messageTs: "1700008101.000100", threadTs: THREAD });
const without = (payload: Record<string, unknown>, field: string) =>
  Object.fromEntries(Object.entries(payload).filter(([key]) => key !== field));

type Mangle = (payload: Record<string, unknown>) => Record<string, unknown>;
const CLICKS: Array<[string, Mangle]> = [
  ["without its user", (payload) => without(payload, "user")],
  ["with a number for its user", (payload) => ({ ...payload, user: 42 })],
  ["without its channel and message", (payload) => without(without(payload, "channel"), "message")],
  ["with no action", (payload) => ({ ...payload, actions: [] })],
  ["with a value of 200,000 characters", (payload) => ({ ...payload, actions: [{ ...(payload.actions as object[])[0], value: HUGE }] })],
];

const submission = (callbackId: string) =>
  viewSubmissionPayload({ user: "U0ALICE", callbackId, privateMetadata: JSON.stringify({ runId: "r1" }), values: {} });
const withView = (payload: Record<string, unknown>, view: Record<string, unknown>) => ({
  ...payload,
  view: { ...(payload.view as object), ...view },
});
const SUBMISSIONS: Array<[string, Mangle]> = [
  ["without its user", (payload) => without(payload, "user")],
  ["with metadata that is not JSON", (payload) => withView(payload, { private_metadata: "{not json" })],
  ["with metadata of 200,000 characters", (payload) => withView(payload, { private_metadata: JSON.stringify({ runId: HUGE }) })],
  ["without its state", (payload) => withView(payload, { state: undefined })],
  ["with a number for its values", (payload) => withView(payload, { state: { values: 7 } })],
];

/** Posts the interaction; resolves with its status once the adapter logged a warning for it. */
async function sent(payload: Record<string, unknown>): Promise<number> {
  const before = harness.logs.length;
  const { status } = await postInteraction(harness.eventsUrl, payload);
  await expect.poll(() => harness.logs.slice(before).some((line) => line.level >= 40)).toBe(true);
  return status;
}

describe("malformed interactions", () => {
  const buttons = [...BUTTON_ACTIONS, ...Object.keys(FORM_CARD.actions), ...Object.keys(HELD_CARD.actions)];
  it.each(buttons.flatMap((action) => CLICKS.map(([how, mangle]) => [action, how, mangle] as const)))(
    "a click on %s %s is answered and logged",
    async (action, _how, mangle) => {
      expect(await sent(mangle(click(action)))).toBeLessThan(500);
    },
  );

  it.each([FEEDBACK_MODAL, FORM_MODAL].flatMap((callbackId) => SUBMISSIONS.map(([how, mangle]) => [callbackId, how, mangle] as const)))(
    "a submission of %s %s is answered and logged",
    async (callbackId, _how, mangle) => {
      expect(await sent(mangle(submission(callbackId)))).toBeLessThan(500);
    },
  );

  it("rejected nothing unhandled, and the bot answers the next question", async () => {
    await postEvent(harness.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> are you there?`, ts: THREAD }));
    await harness.fake.waitForShown((text) => text === "Still here.");
    expect(harness.fake.shown().map(shownText)).toContain("Still here.");
    expect(unhandled).toEqual([]);
  });
});
