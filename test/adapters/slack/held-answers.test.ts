// An answer that quotes a private channel, asked in a public channel's thread (issue 39 item 3),
// end to end on Slack: Bolt over HTTP, the real service, the strict fake Web API. Held, the
// requester alone sees the preview (ephemeral in the thread) and each button does its thing; a
// place whose people all see the quoted channel gets the answer as usual; `private` and `allow`;
// a restart while held posts nothing, and the choice still works after it.
import { afterEach, describe, expect, it } from "vitest";
import { HELD_DROP_ACTION, HELD_POST_ACTION, HELD_PRIVATE_ACTION } from "../../../src/adapters/slack/held-message.js";
import { BOT_USER_ID, shownText, type FakeEphemeral } from "../../support/fake-slack.js";
import { actionValue, blockActionPayload, mentionEvent, postEvent, postInteraction } from "../../support/fake-slack-requests.js";
import { call, say, ScriptedModel } from "../../support/model-scripted.js";
import { startSlackHarness, type SlackHarness } from "../../support/slack-harness.js";
import { until } from "../../support/until.js";

let harness: SlackHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const SECRET = "The acquisition of Initech closes on March 3 and nobody outside the board may know yet.";
const THREAD = "1700009300.000100";

async function askQuotingBoard(
  env: Record<string, string> = {},
  channel = "C0GENERAL",
  people?: string[],
  answer = `The board channel says: ${SECRET}`,
): Promise<SlackHarness> {
  const model = new ScriptedModel([call("read_channel", { channel: "C0BOARD" }), say(answer)]);
  const h = await startSlackHarness({ model, env });
  harness = h;
  h.fake.setChannelKind("C0BOARD", "private");
  h.fake.setMembers("C0BOARD", [BOT_USER_ID, "U0ALICE", "U0BOB"]);
  h.fake.addMessage({ channel: "C0BOARD", ts: "1700009000.000100", user: "U0BOB", text: SECRET });
  if (people) {
    h.fake.setChannelKind(channel, "private");
    h.fake.setMembers(channel, people);
  }
  await postEvent(h.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> what did the board decide?`, ts: THREAD, channel }));
  return h;
}

const threadText = (h: SlackHarness, channel = "C0GENERAL") => h.fake.threadMessages(channel, THREAD).map(shownText).join("\n");

async function preview(h: SlackHarness): Promise<FakeEphemeral> {
  await until(() => h.fake.ephemeralsOf("U0ALICE").some((e) => actionValue(e.blocks, HELD_POST_ACTION)), "the held answer's preview");
  return h.fake.ephemeralsOf("U0ALICE").find((e) => actionValue(e.blocks, HELD_POST_ACTION))!;
}

function press(h: SlackHarness, card: FakeEphemeral, user: string, action: string) {
  const value = actionValue(card.blocks, action)!;
  return postInteraction(
    h.eventsUrl,
    blockActionPayload({ user, actionId: action, value, channel: "C0GENERAL", messageTs: card.ts, threadTs: THREAD, ephemeral: true }),
  );
}

/** Every Slack call that carries the secret but Alice's own preview: the answer, its trace, a stream written as the model wrote. */
const secretOutsideThePreview = (h: SlackHarness) =>
  h.fake.calls.filter(
    (c) =>
      !(c.method === "chat.postEphemeral" && c.args.user === "U0ALICE") &&
      c.method.startsWith("chat.") &&
      JSON.stringify(c.args).includes("Initech"),
  );

/** Whether the answer's text went out as the model wrote it, before the run ended (a stream's start or its appends). */
const streamed = (h: SlackHarness, text: string) =>
  h.fake.calls.some((c) => (c.method === "chat.startStream" || c.method === "chat.appendStream") && JSON.stringify(c.args).includes(text));

const dmsTo = (h: SlackHarness, user: string) => h.fake.callsTo("chat.postMessage").filter((c) => c.args.channel === user);

describe("a Slack answer that quotes a private channel", () => {
  it("is held: the thread gets a note, the requester alone a preview; Post here posts it in the thread, once", async () => {
    const h = await askQuotingBoard();
    const card = await preview(h);
    expect(card).toMatchObject({ channel: "C0GENERAL", thread_ts: THREAD });
    expect(card.text).toContain(SECRET);
    await until(() => threadText(h).includes("I asked"), "the note in the thread");
    expect(threadText(h)).not.toContain("Initech");
    expect(h.fake.ephemeralsOf("U0BOB").some((e) => e.text.includes("Initech"))).toBe(false);
    // Never shown on the way either: not streamed as the model wrote it, not in the trace.
    expect(secretOutsideThePreview(h)).toEqual([]);

    expect((await press(h, card, "U0BOB", HELD_POST_ACTION)).status).toBe(200);
    await until(() => h.fake.ephemeralsOf("U0BOB").some((e) => e.text.includes("Only the person who asked")), "Bob's refusal");
    expect(threadText(h)).not.toContain("Initech");

    await press(h, card, "U0ALICE", HELD_POST_ACTION);
    await until(() => threadText(h).includes("Initech"), "the answer posted in the thread");
    await press(h, card, "U0ALICE", HELD_POST_ACTION);
    await until(() => h.fake.ephemeralsOf("U0ALICE").some((e) => e.text.includes("no longer held")), "the second click's note");
    expect(h.fake.threadMessages("C0GENERAL", THREAD).filter((m) => shownText(m).includes("Initech"))).toHaveLength(1);
  });

  it("Post here posts it as an answer shows on Slack: its Markdown as mrkdwn, pinging no crowd", async () => {
    const markdown = `## The board\n**${SECRET}** See [the memo](https://example.com/memo), @channel.`;
    const h = await askQuotingBoard({}, "C0GENERAL", undefined, markdown);
    const card = await preview(h);
    expect(card.text).toContain(`*${SECRET}*`);
    await press(h, card, "U0ALICE", HELD_POST_ACTION);
    await until(() => threadText(h).includes("Initech"), "the answer posted in the thread");
    const posted = threadText(h);
    expect(posted).toContain(`*The board*\n*${SECRET}* See <https://example.com/memo|the memo>, @\u2060channel.`);
    expect(posted).not.toContain("**");
    expect(posted).not.toContain("## ");
  });

  it("Send to me privately sends it as a direct message, and nothing in the thread", async () => {
    const h = await askQuotingBoard();
    await press(h, await preview(h), "U0ALICE", HELD_PRIVATE_ACTION);
    await until(() => dmsTo(h, "U0ALICE").some((c) => String(c.args.text).includes("Initech")), "the direct message");
    await until(() => h.fake.ephemeralsOf("U0ALICE").some((e) => e.text.includes("Sent to you by direct message.")), "what happened, said");
    expect(threadText(h)).not.toContain("Initech");
  });

  it("Drop posts nothing anywhere, and says so", async () => {
    const h = await askQuotingBoard();
    await press(h, await preview(h), "U0ALICE", HELD_DROP_ACTION);
    await until(() => h.fake.ephemeralsOf("U0ALICE").some((e) => e.text.includes("Dropped")), "the drop's note");
    expect(threadText(h)).not.toContain("Initech");
    expect(dmsTo(h, "U0ALICE")).toHaveLength(0);
  });

  it("is posted as usual where everyone can see the quoted channel", async () => {
    const h = await askQuotingBoard({}, "C0SMALL", [BOT_USER_ID, "U0ALICE"]);
    await until(() => threadText(h, "C0SMALL").includes("Initech"), "the answer");
    expect(h.fake.ephemeralsOf("U0ALICE")).toHaveLength(0);
  });

  it("CROSS_CHANNEL_READS=private sends it privately at once; allow posts it", async () => {
    const h = await askQuotingBoard({ CROSS_CHANNEL_READS: "private" });
    await until(() => dmsTo(h, "U0ALICE").some((c) => String(c.args.text).includes("Initech")), "the direct message");
    await until(() => threadText(h).includes("privately"), "the note");
    expect(threadText(h)).not.toContain("Initech");
    await h.close();
    const allowed = await askQuotingBoard({ CROSS_CHANNEL_READS: "allow" });
    await until(() => threadText(allowed).includes("Initech"), "the answer");
    // Nothing can hold it, so it streams as any answer does.
    expect(streamed(allowed, "Initech")).toBe(true);
  });

  it("streams an answer after a read of the channel it was asked in alone: nothing it quotes can be held", async () => {
    const notice = "The office is closed on Friday for the move to the fourth floor.";
    const model = new ScriptedModel([call("read_channel", { channel: "C0GENERAL" }), say(`The channel says: ${notice}`)]);
    const h = await startSlackHarness({ model });
    harness = h;
    h.fake.addMessage({ channel: "C0GENERAL", ts: "1700009000.000100", user: "U0BOB", text: notice });
    await postEvent(h.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> what did Bob say here?`, ts: THREAD }));
    await until(() => threadText(h).includes("fourth floor"), "the answer");
    expect(streamed(h, "fourth floor")).toBe(true);
    expect(h.fake.ephemeralsOf("U0ALICE")).toHaveLength(0);
  });

  it("a restart while held posts nothing, and the button works after it", async () => {
    const h = await askQuotingBoard();
    const card = await preview(h);
    await until(() => threadText(h).includes("I asked"), "the note");
    await h.restart();
    expect(threadText(h)).not.toContain("Initech");
    await press(h, card, "U0ALICE", HELD_POST_ACTION);
    await until(() => threadText(h).includes("Initech"), "the answer posted after the restart");
  });
});
