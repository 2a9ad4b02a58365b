// A Connect link on Slack, through Bolt over HTTP and the strict fake Web API: the requester alone
// gets an ephemeral message in the run's thread whose text writes the link out (notifications,
// clients without blocks) and whose blocks hold a "Connect <server>" url button; the button's click,
// which Slack still sends, is only acked. Refused as ephemeral, the same note comes as a direct
// message; a link Slack would refuse as a button is the text alone. A schedule's owner whose slot
// was skipped for want of a connection gets the same note. The blocks stay in Block Kit's
// limits (the fake refuses what Slack refuses).
import { afterEach, describe, expect, it } from "vitest";
import { LINK_ACTION, linkNoteBlocks } from "../../../src/adapters/slack/link-button.js";
import { CONNECT_BASE, connectStandIn, type HarnessConnect } from "../../support/connect-stand-in.js";
import { blockProblems } from "../../support/fake-slack-blocks.js";
import { BOT_USER_ID, shownText } from "../../support/fake-slack.js";
import { blockActionPayload, mentionEvent, postEvent, postInteraction } from "../../support/fake-slack-requests.js";
import { call, ScriptedModel } from "../../support/model-scripted.js";
import { manualClock } from "../../support/schedule-harness.js";
import { startSlackHarness, type SlackHarness } from "../../support/slack-harness.js";

let harness: SlackHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const THREAD = "1700009500.000100";
const CAPTION =
  "Your request needs you to connect docs. Sign in as yourself with the button (the link is yours alone and lasts 10 minutes); your request goes on by itself once you are connected.";
const slackButtons = (blocks: unknown) =>
  ((blocks ?? []) as Array<{ type: string; elements?: unknown[] }>).flatMap((block) =>
    block.type === "actions" ? (block.elements ?? []) : [],
  );
const textOf = (url: string) =>
  `Connect docs: ${url}\nSign in there as yourself (the link is yours alone and lasts 10 minutes); your request goes on by itself once you are connected.`;

/** Alice asks in a thread for what needs docs, which she has not connected. */
async function askNeedingDocs(connect: HarnessConnect): Promise<SlackHarness> {
  harness = await startSlackHarness({ model: new ScriptedModel([call("docs__whoami", {}, "call_who")]), connect });
  await postEvent(harness.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> who am I at docs?`, ts: THREAD }));
  return harness;
}

describe("a Connect link on Slack", () => {
  it("where Slack refuses streams, the trace message says whom the run waits for, not an approval", async () => {
    const docs = connectStandIn();
    harness = await startSlackHarness({ model: new ScriptedModel([call("docs__whoami", {}, "call_who")]), connect: docs });
    harness.fake.refuseStreaming();
    await postEvent(harness.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> who am I at docs?`, ts: THREAD }));
    const trace = await harness.fake.waitForShown((text) => text.includes("Steps so far:"));
    expect(shownText(trace)).toContain("Waiting for <@U0ALICE> to connect docs. Steps so far:");
    expect(shownText(trace)).not.toContain("Waiting for approval");
  });

  it("is an ephemeral note in the thread to the requester alone, with a Connect button; its click is only acked", async () => {
    const docs = connectStandIn();
    const h = await askNeedingDocs(docs);
    const note = await h.fake.waitForCall("chat.postEphemeral", (c) => c.args.user === "U0ALICE");
    const url = `${CONNECT_BASE}?state=${docs.pending[0]!.runId}`;
    expect(note.error).toBeUndefined();
    expect(note.args).toMatchObject({ channel: "C0GENERAL", thread_ts: THREAD, text: textOf(url) });
    expect(note.args.blocks).toEqual([
      { type: "section", text: { type: "mrkdwn", text: CAPTION } },
      {
        type: "actions",
        block_id: "link",
        elements: [{ type: "button", action_id: LINK_ACTION, text: { type: "plain_text", text: "Connect docs", emoji: false }, url }],
      },
    ]);
    // Nobody else is shown it: no one else's ephemeral, nothing in the thread.
    expect(h.fake.ephemeralsOf("U0BOB")).toEqual([]);
    expect(h.fake.threadMessages("C0GENERAL", THREAD).map(shownText).join("\n")).not.toContain(CONNECT_BASE);

    const before = h.fake.calls.length;
    const click = blockActionPayload({
      user: "U0ALICE",
      actionId: LINK_ACTION,
      value: "",
      channel: "C0GENERAL",
      messageTs: h.fake.ephemeralsOf("U0ALICE")[0]!.ts,
      threadTs: THREAD,
      ephemeral: true,
    });
    expect((await postInteraction(h.eventsUrl, click)).status).toBe(200);
    expect(h.fake.calls.slice(before)).toEqual([]);
    expect(h.logs.filter((line) => line.level >= 40)).toEqual([]);
  });

  it("comes as a direct message with the same button when Slack refuses the ephemeral", async () => {
    const docs = connectStandIn();
    harness = await startSlackHarness({ model: new ScriptedModel([call("docs__whoami", {}, "call_who")]), connect: docs });
    harness.fake.fail("chat.postEphemeral", { error: "user_not_in_channel" });
    await postEvent(harness.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> who am I at docs?`, ts: THREAD }));
    const direct = await harness.fake.waitForCall("chat.postMessage", (c) => c.args.channel === "U0ALICE");
    const url = `${CONNECT_BASE}?state=${docs.pending[0]!.runId}`;
    expect(direct.error).toBeUndefined();
    expect(direct.args.text).toBe(textOf(url));
    expect(JSON.stringify(direct.args.blocks)).toContain(`"url":"${url}"`);
    // Slack takes form fields as text: the link is not fetched for a preview.
    expect(direct.args).toMatchObject({ unfurl_links: "false", unfurl_media: "false" });
    expect(harness.fake.threadMessages("C0GENERAL", THREAD).map(shownText).join("\n")).not.toContain(CONNECT_BASE);
  });

  it("is the text alone where Slack would refuse the link as a button (a url past 3,000 characters)", async () => {
    const docs = connectStandIn();
    const long: HarnessConnect = { tools: docs.tools, link: async (pending) => `${await docs.link(pending)}&pad=${"x".repeat(3_000)}` };
    const h = await askNeedingDocs(long);
    const note = await h.fake.waitForCall("chat.postEphemeral", (c) => c.args.user === "U0ALICE");
    expect(note.error).toBeUndefined();
    expect(String(note.args.text)).toContain("&pad=xxx");
    expect(note.args.blocks).toBeUndefined();
  });

  it("is a schedule owner's note with its Connect button too, when their slot is skipped for it", async () => {
    const docs = connectStandIn();
    const clock = manualClock(Date.now());
    harness = await startSlackHarness({
      model: new ScriptedModel([call("docs__whoami", {}, "call_who")]),
      connect: docs,
      schedules: { clock },
    });
    const h = harness;
    await postEvent(h.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> schedule in 20 minutes: who am I at docs?`, ts: THREAD }));
    await h.fake.waitForShown((text) => text.includes("Scheduled sch_"));
    clock.advance(20 * 60_000);
    await h.schedules!.settle();
    await h.fake.waitForShown((text) => text.includes("This slot was skipped: it needs its owner to connect docs"));
    const [note] = h.fake.ephemeralsOf("U0ALICE");
    const url = `${CONNECT_BASE}?state=${docs.pending[0]!.runId}`;
    expect(note!.text).toContain(`Connect docs: ${url}`);
    expect(slackButtons(note!.blocks)).toEqual([
      { type: "button", action_id: LINK_ACTION, text: { type: "plain_text", text: "Connect docs", emoji: false }, url },
    ]);
    expect(h.fake.ephemeralsOf("U0BOB")).toEqual([]);
  });

  it("keeps its blocks within Block Kit's limits, which the fake holds the bot to", () => {
    const blocks = linkNoteBlocks({
      label: `Connect ${"s".repeat(200)}`,
      url: `https://b.example/${"u".repeat(2_970)}`,
      caption: "c".repeat(5_000),
    });
    expect(blocks).toBeDefined();
    expect(blockProblems(blocks!)).toEqual([]);
    expect(linkNoteBlocks({ label: "Connect docs", url: `https://b.example/${"u".repeat(3_000)}`, caption: "c" })).toBeUndefined();
    const button = (text: string, url: string) => [
      { type: "actions", elements: [{ type: "button", text: { type: "plain_text", text }, url }] },
    ];
    expect(blockProblems(button("x".repeat(76), "https://b.example"))).toHaveLength(1);
    expect(blockProblems(button("Connect", `https://b.example/${"u".repeat(3_000)}`))).toHaveLength(1);
    expect(blockProblems([{ type: "actions", elements: [] }])).toHaveLength(1);
  });
});
