// A server's form on Slack, end to end through Bolt over HTTP, the strict fake Web API and an
// SDK-built MCP server on 127.0.0.1: the card is ephemeral to the requester alone, its Answer
// button opens a modal (with the click's trigger, once) whose defaults are filled in, a field that
// does not read comes back under it, another person's click changes nothing, Decline and Dismiss
// reach the server as decline and cancel, and a form left unanswered closes at its expiry.
import { afterEach, describe, expect, it } from "vitest";
import type { ModelRequest } from "../../../src/contracts/types.js";
import { FORM_CANCEL_ACTION, FORM_DECLINE_ACTION, FORM_OPEN_ACTION } from "../../../src/adapters/slack/form-message.js";
import { FORM_MODAL } from "../../../src/adapters/slack/form-modal.js";
import { BOT_USER_ID, shownText, type RecordedCall } from "../../support/fake-slack.js";
import { blockActionPayload, mentionEvent, postEvent, postInteraction, viewSubmissionPayload } from "../../support/fake-slack-requests.js";
import { startAskingServer, type AskingServer } from "../../support/elicitation-harness.js";
import { call, say, ScriptedModel } from "../../support/model-scripted.js";
import { startSlackHarness, type SlackHarness } from "../../support/slack-harness.js";
import { until } from "../../support/until.js";

let harness: SlackHarness | undefined;
let server: AskingServer | undefined;
afterEach(async () => {
  await harness?.close();
  await server?.close();
  harness = server = undefined;
});

const THREAD = "1700009100.000100";
const said = (request: ModelRequest) => say(`server said: ${request.messages.at(-1)?.content ?? ""}`);

async function askForForm(env: Record<string, string> = {}): Promise<{ h: SlackHarness; s: AskingServer; card: RecordedCall }> {
  const s = await startAskingServer();
  server = s;
  const h = await startSlackHarness({ model: new ScriptedModel([call("rooms__book_room", {}), said]), toolSource: s.manager.tools, env });
  harness = h;
  await postEvent(h.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> book a room`, ts: THREAD }));
  const card = await h.fake.waitForCall("chat.postEphemeral", (c) => JSON.stringify(c.args.blocks ?? []).includes(FORM_OPEN_ACTION));
  return { h, s, card };
}

function buttonValue(card: RecordedCall, action: string): string {
  const blocks = card.args.blocks as Array<{ elements?: Array<{ action_id: string; value?: string }> }>;
  return blocks.flatMap((block) => block.elements ?? []).find((element) => element.action_id === action)!.value!;
}

/** A click on the ephemeral card, as Slack sends it (no `message`). */
function press(h: SlackHarness, card: RecordedCall, user: string, action: string, triggerId = h.fake.trigger()) {
  return postInteraction(
    h.eventsUrl,
    blockActionPayload({
      user,
      actionId: action,
      value: buttonValue(card, action),
      channel: "C0GENERAL",
      messageTs: "1700009100.000200",
      threadTs: THREAD,
      ephemeral: true,
      triggerId,
    }),
  );
}

/** The server received its answer, and the run answered in the thread with it. */
async function answered(s: AskingServer, h: SlackHarness, count = 1): Promise<void> {
  await until(() => s.log.results.length >= count, "the server's answer");
  await until(() => h.fake.threadMessages("C0GENERAL", THREAD).map(shownText).join("\n").includes("server said"), "the run's answer");
}

describe("a server's form on Slack", () => {
  it("shows the requester alone a card; its modal has the defaults; a bad field comes back under it; Send reaches the server", async () => {
    const { h, s, card } = await askForForm();
    expect(card.args).toMatchObject({ channel: "C0GENERAL", user: "U0ALICE", thread_ts: THREAD });
    expect(String(card.args.text)).toContain("The MCP server `rooms` asks you to fill in a form: Which room, and what for?");
    expect((await press(h, card, "U0ALICE", FORM_OPEN_ACTION)).status).toBe(200);
    await h.fake.waitForCall("views.open");
    const view = h.fake.opened[0]!.view as { title: { text: string }; private_metadata: string; blocks: Array<Record<string, any>> };
    expect(view.title.text).toBe("Answer rooms");
    const inputs = Object.fromEntries(
      view.blocks.filter((block) => block.type === "input").map((block) => [block.block_id, block.element]),
    );
    expect(inputs["f:room"]).toMatchObject({ type: "static_select", initial_option: { value: "oak" } });
    expect(inputs["f:people"]).toMatchObject({
      type: "number_input",
      is_decimal_allowed: false,
      min_value: "1",
      max_value: "12",
      initial_value: "4",
    });
    expect(inputs["f:projector"]).toMatchObject({ type: "checkboxes", initial_options: [{ value: "true" }] });
    const values = (purpose: string | null) => ({
      "f:room": { v: { type: "static_select", selected_option: { value: "pine", text: { type: "plain_text", text: "Pine room" } } } },
      "f:purpose": { v: { type: "plain_text_input", value: purpose } },
      "f:people": { v: { type: "number_input", value: null } },
      "f:projector": { v: { type: "checkboxes", selected_options: [{ value: "true" }] } },
      "f:note": { v: { type: "plain_text_input", value: null } },
    });
    const submit = (purpose: string | null) =>
      postInteraction(
        h.eventsUrl,
        viewSubmissionPayload({
          user: "U0ALICE",
          callbackId: FORM_MODAL,
          privateMetadata: view.private_metadata,
          values: values(purpose) as never,
        }),
      );
    const refused = await submit(null);
    expect(JSON.parse(refused.text)).toEqual({ response_action: "errors", errors: { "f:purpose": "Purpose is required" } });
    expect(s.log.results).toEqual([]);
    expect((await submit("retro")).status).toBe(200);
    await answered(s, h);
    expect(s.log.results).toEqual([
      { action: "accept", content: { room: "pine", purpose: "retro", people: 4, projector: true, note: "none" } },
    ]);
  });

  it("refuses another person's click without opening anything; a trigger is taken once and not after 3 s", async () => {
    const { h, s, card } = await askForForm();
    await press(h, card, "U0BOB", FORM_OPEN_ACTION);
    const told = await h.fake.waitForCall("chat.postEphemeral", (c) => c.args.user === "U0BOB");
    expect(String(told.args.text)).toBe("Only <@U0ALICE> can answer this form.");
    await press(h, card, "U0BOB", FORM_DECLINE_ACTION);
    await h.fake.waitForCall("chat.postEphemeral", (c) => c.args.user === "U0BOB" && c !== told);
    expect(h.fake.callsTo("views.open")).toHaveLength(0);
    const trigger = h.fake.trigger();
    await press(h, card, "U0ALICE", FORM_OPEN_ACTION, trigger);
    await press(h, card, "U0ALICE", FORM_OPEN_ACTION, trigger);
    const again = await h.fake.waitForCall(
      "chat.postEphemeral",
      (c) => c.args.user === "U0ALICE" && String(c.args.text).includes("could not be opened"),
    );
    expect(again).toBeDefined();
    await press(h, card, "U0ALICE", FORM_OPEN_ACTION, h.fake.trigger(3_500));
    await until(() => h.fake.callsTo("views.open").length === 3, "the late click's views.open");
    expect(h.fake.callsTo("views.open").map((c) => c.error ?? "ok")).toEqual(["ok", "exchanged_trigger_id", "expired_trigger_id"]);
    expect(h.fake.opened).toHaveLength(1);
    expect(s.log.results).toEqual([]);
    await press(h, card, "U0ALICE", FORM_DECLINE_ACTION);
    await answered(s, h);
    expect(s.log.results).toEqual([{ action: "decline" }]);
  });

  it("Dismiss reaches the server as cancel; a form left unanswered closes at its expiry", async () => {
    const first = await askForForm();
    await press(first.h, first.card, "U0ALICE", FORM_CANCEL_ACTION);
    await answered(first.s, first.h);
    expect(first.s.log.results).toEqual([{ action: "cancel" }]);
    await harness?.close();
    await server?.close();
    const { h, s, card } = await askForForm({ MCP_ELICITATION_TIMEOUT_MS: "1000" });
    await answered(s, h);
    expect(s.log.results).toEqual([{ action: "cancel" }]);
    await press(h, card, "U0ALICE", FORM_OPEN_ACTION);
    const late = await h.fake.waitForCall("chat.postEphemeral", (c) => String(c.args.text).includes("not answered in time"));
    expect(late.args.user).toBe("U0ALICE");
    expect(h.fake.opened).toHaveLength(0);
  });
});
