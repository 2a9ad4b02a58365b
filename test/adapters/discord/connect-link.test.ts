// A Connect link on Discord, through discord.js and the strict fake Discord: asked with /ask, the
// requester alone gets an ephemeral follow-up whose link button (ButtonStyle.Link: a url, no
// custom id) says "Connect <server>", and /ask's reply stays to answer in once they connected;
// asked with a mention, the same note comes as a direct message. A link Discord would refuse as a button (a url past 512 characters) is sent as the
// text, which writes it out. Nobody else is shown it.
import { afterEach, describe, expect, it } from "vitest";
import { linkButtons } from "../../../src/adapters/discord/buttons.js";
import { ownerOf } from "../../../src/tools/mcp/person-server.js";
import { CONNECT_BASE, connectStandIn, type HarnessConnect } from "../../support/connect-stand-in.js";
import { originalPath, startDiscordHarness, webhookPath, type DiscordHarness } from "../../support/discord-harness.js";
import { componentProblems } from "../../support/fake-discord-messages.js";
import { call, say } from "../../support/model-scripted.js";
import { until } from "../../support/until.js";

let harness: DiscordHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const CAPTION =
  "Your request needs you to connect docs. Sign in as yourself with the button (the link is yours alone and lasts 10 minutes); your request goes on by itself once you are connected.";
const EPHEMERAL = 64;
const LINK_STYLE = 5;

const start = (connect: HarnessConnect) => startDiscordHarness({ script: [call("docs__whoami", {}, "call_who")], connect });

/** Alice mentions the bot for what needs docs; resolves with the first direct message she got. */
async function mentionedNeedingDocs(connect: HarnessConnect) {
  harness = await start(connect);
  const h = harness;
  h.fake.userMessage(h.alice, "who am I at docs?", { mentionBot: true });
  const inbox = () => {
    const dm = h.fake.dmOf(h.alice);
    return dm ? h.fake.messagesIn(dm.id) : [];
  };
  await until(() => inbox().length > 0, "alice's direct message");
  return { h, direct: inbox()[0]! };
}

describe("a Connect link on Discord", () => {
  it("is an ephemeral follow-up of /ask to the requester alone, with a Connect link button; the run answers in /ask's reply once connected", async () => {
    const docs = connectStandIn();
    harness = await startDiscordHarness({
      script: [call("docs__whoami", {}, "call_who"), say("Done: you are known at docs.")],
      connect: docs,
    });
    const h = harness;
    const { token } = h.fake.slashCommand("ask", h.alice, { values: { question: "who am I at docs?" } });
    const note = await h.fake.waitForCall("POST", webhookPath(h.fake, token), (c) =>
      JSON.stringify(c.body.components ?? []).includes(CONNECT_BASE),
    );
    const url = `${CONNECT_BASE}?state=${docs.pending[0]!.runId}`;
    expect(note.status).toBe(200);
    expect(note.body.flags).toBe(EPHEMERAL);
    expect(note.body.content).toBe(CAPTION);
    expect(note.body.components).toEqual([{ type: 1, components: [{ type: 2, style: LINK_STYLE, label: "Connect docs", url }] }]);
    const shownToAll = () => h.fake.messagesIn(h.fake.general.id).filter((message) => ((message.flags ?? 0) & EPHEMERAL) === 0);
    expect(JSON.stringify(shownToAll())).not.toContain(CONNECT_BASE);
    expect(h.fake.dmOf(h.bob)).toBeUndefined();
    // The reply /ask showed stays, saying what the run waits for, and the run answers there.
    const waiting = `⏸️ Waiting for <@${h.alice.id}> to connect \`docs\` (the link was sent to them privately).`;
    await until(() => shownToAll().some((message) => message.content === waiting), "the reply saying what the run waits for");
    const pending = docs.pending[0]!;
    docs.connect(h.alice.id);
    await h.service.connectionGrants.connected({
      owner: ownerOf(pending.origin),
      server: "docs",
      runId: pending.runId,
      callId: pending.callId,
    });
    await h.fake.waitForCall(
      "PATCH",
      originalPath(h.fake, token),
      (c) => c.status === 200 && String(c.body.content).includes("Done: you are known at docs."),
    );
  });

  it("comes as a direct message with the button when asked with a mention", async () => {
    const docs = connectStandIn();
    const { h, direct } = await mentionedNeedingDocs(docs);
    const url = `${CONNECT_BASE}?state=${docs.pending[0]!.runId}`;
    expect(direct.content).toBe(CAPTION);
    expect(direct.components).toEqual([{ type: 1, components: [{ type: 2, style: LINK_STYLE, label: "Connect docs", url }] }]);
    expect(JSON.stringify(h.fake.messagesIn(h.fake.general.id))).not.toContain(CONNECT_BASE);
    expect(h.fake.dmOf(h.bob)).toBeUndefined();
  });

  it("is the text, which writes the link out, where Discord would refuse it as a button (a url past 512 characters)", async () => {
    const docs = connectStandIn();
    const long: HarnessConnect = { tools: docs.tools, link: async (pending) => `${await docs.link(pending)}&pad=${"x".repeat(500)}` };
    const { direct } = await mentionedNeedingDocs(long);
    expect(direct.content).toMatch(/^Connect docs: https:\/\/bot\.example\/oauth\/connect\?state=\S+&pad=x{500}\n/);
    expect(direct.components).toEqual([]);
  });

  it("keeps its button within Discord's limits, which the fake holds the bot to", () => {
    expect(componentProblems(linkButtons(`Connect ${"s".repeat(200)}`, `https://b.example/${"u".repeat(490)}`))).toEqual([]);
    expect(linkButtons("Connect docs", `https://b.example/${"u".repeat(500)}`)).toBeUndefined();
    const row = (button: Record<string, unknown>) => [{ type: 1, components: [{ type: 2, label: "Connect", ...button }] }];
    expect(componentProblems(row({ style: LINK_STYLE, url: "https://b.example", custom_id: "x" }))).toHaveLength(1);
    expect(componentProblems(row({ style: LINK_STYLE }))).toHaveLength(1);
    expect(componentProblems(row({ style: 1, url: "https://b.example", custom_id: "x" }))).toHaveLength(1);
    expect(componentProblems(row({ style: 1 }))).toHaveLength(1);
  });
});
