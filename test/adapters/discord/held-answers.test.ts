// An answer that quotes a channel not everyone can view, asked in #general (issue 39 item 3), end
// to end on Discord: discord.js against the fake gateway and REST, the real service. Held, the
// requester gets the preview by direct message with three buttons, each of which does its thing
// for the requester alone; a channel whose viewers all see the quoted one gets the answer as usual;
// `private` and `allow`; a restart while held posts nothing, and the button works after it.
import { OverwriteType, PermissionFlagsBits } from "discord.js";
import { afterEach, describe, expect, it } from "vitest";
import type { FakeChannel } from "../../support/fake-discord.js";
import { nextSnowflake, type FakeUser } from "../../support/fake-discord-payloads.js";
import { call, say } from "../../support/model-scripted.js";
import { startDiscordHarness, type DiscordHarness } from "../../support/discord-harness.js";
import { until } from "../../support/until.js";

let harness: DiscordHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const SECRET = "The acquisition of Initech closes on March 3 and nobody outside the board may know yet.";

async function askQuotingBoard(env: Record<string, string> = {}, where?: (h: DiscordHarness) => FakeChannel) {
  let board = "";
  const h = await startDiscordHarness({
    script: [() => call("read_channel", { channel: board }), say(`The board channel says: ${SECRET}`)],
    env,
  });
  harness = h;
  const only = (...ids: string[]) => [
    h.fake.hiddenFromEveryone(),
    ...ids.map((id) => ({ id, type: OverwriteType.Member, allow: PermissionFlagsBits.ViewChannel })),
  ];
  const boardChannel = h.fake.guildChannel("board", only(h.alice.id, h.bob.id, h.fake.bot.id));
  board = boardChannel.id;
  h.fake.setMember(h.alice);
  h.fake.setMember(h.bob);
  h.fake.userMessage(h.bob, SECRET, { channel: boardChannel });
  const channel = where?.(h) ?? h.fake.general;
  h.fake.userMessage(h.alice, "what did the board decide?", { mentionBot: true, channel });
  return { h, channel };
}

const textIn = (h: DiscordHarness, channel: FakeChannel) =>
  h.fake
    .messagesIn(channel.id)
    .map((m) => m.content)
    .join("\n");
const dmTexts = (h: DiscordHarness) => {
  const dm = h.fake.dmOf(h.alice);
  return dm ? h.fake.messagesIn(dm.id) : [];
};

/** Every text the bot sent anywhere but Alice's DM that carries the secret: the answer, its trace, a live draft. */
const secretOutsideTheDm = (h: DiscordHarness) => {
  const dm = h.fake.dmOf(h.alice)?.id;
  return h.fake.calls.filter(
    (c) => c.method !== "GET" && (dm === undefined || !c.path.includes(dm)) && JSON.stringify(c.body ?? "").includes("Initech"),
  );
};

async function preview(h: DiscordHarness) {
  await until(() => dmTexts(h).some((m) => (m.components ?? []).length > 0), "the held answer's preview");
  const message = dmTexts(h).find((m) => (m.components ?? []).length > 0)!;
  const ids = JSON.stringify(message.components).match(/held:[pvd]:[^"]+/g) ?? [];
  return { message, button: (key: "p" | "v" | "d") => ids.find((id) => id.startsWith(`held:${key}:`))! };
}

describe("a Discord answer that quotes a channel not everyone can view", () => {
  it("is held: #general gets a note, Alice a preview by DM; Bob's click changes nothing, Alice's Post here posts it", async () => {
    const { h } = await askQuotingBoard();
    const card = await preview(h);
    expect(card.message.content).toContain(SECRET);
    await until(() => textIn(h, h.fake.general).includes("I asked"), "the note in #general");
    expect(textIn(h, h.fake.general)).not.toContain("Initech");
    // Nor in the trace's thread: the read's text and the answer are not in it.
    await until(() => h.fake.calls.some((c) => JSON.stringify(c.body ?? "").includes("read_channel")), "the trace");
    expect(secretOutsideTheDm(h)).toEqual([]);

    h.fake.clickButton(card.message.id, card.button("p"), h.bob);
    await until(() => h.fake.calls.some((c) => JSON.stringify(c.body ?? "").includes("Only the person who asked")), "Bob's refusal");
    expect(textIn(h, h.fake.general)).not.toContain("Initech");

    h.fake.clickButton(card.message.id, card.button("p"), h.alice);
    await until(() => textIn(h, h.fake.general).includes("Initech"), "the answer in #general");
  });

  it("Send to me privately sends it by DM; Drop posts nothing", async () => {
    const { h } = await askQuotingBoard();
    const card = await preview(h);
    h.fake.clickButton(card.message.id, card.button("v"), h.alice);
    await until(() => dmTexts(h).filter((m) => m.content.includes("Initech")).length >= 2, "the answer by DM");
    await until(
      () => h.fake.calls.some((c) => JSON.stringify(c.body ?? "").includes("Sent to you by direct message.")),
      "what happened, said",
    );
    h.fake.clickButton(card.message.id, card.button("d"), h.alice);
    await until(() => h.fake.calls.some((c) => JSON.stringify(c.body ?? "").includes("no longer held")), "the spent button's note");
    expect(textIn(h, h.fake.general)).not.toContain("Initech");
  });

  it("is posted as usual in a channel whose viewers all see the quoted one", async () => {
    const { h, channel } = await askQuotingBoard({}, (at) =>
      at.fake.guildChannel("small", [
        at.fake.hiddenFromEveryone(),
        { id: at.alice.id, type: OverwriteType.Member, allow: PermissionFlagsBits.ViewChannel },
      ]),
    );
    await until(() => textIn(h, channel).includes("Initech"), "the answer");
    expect(dmTexts(h)).toHaveLength(0);
  });

  it("is posted as usual in a private thread whose members all see the quoted one (its members read from Discord)", async () => {
    const { h, channel } = await askQuotingBoard({}, (at) => at.fake.privateThread(at.fake.general, "plans", [at.alice]));
    await until(() => textIn(h, channel).includes("Initech"), "the answer in the thread");
    expect(dmTexts(h)).toHaveLength(0);
    expect(h.fake.callsTo("GET", /\/channels\/\d+\/thread-members$/)).not.toHaveLength(0);
  });

  it("is held in a private thread with a member who can't see the quoted one, or under a channel where such a person manages threads", async () => {
    const carol: FakeUser = { id: nextSnowflake(), username: "carol" };
    const member = await askQuotingBoard({}, (at) => {
      at.fake.setMember(carol);
      return at.fake.privateThread(at.fake.general, "plans", [at.alice, carol]);
    });
    await preview(member.h);
    await until(() => textIn(member.h, member.channel).includes("read_channel"), "the note and the trace in the thread");
    expect(textIn(member.h, member.channel)).toContain("I asked");
    expect(secretOutsideTheDm(member.h)).toEqual([]);
    await member.h.close();

    // Carol is not in this one, but may manage threads in its channel: Discord shows her every private thread there.
    const manager = await askQuotingBoard({}, (at) => {
      at.fake.setMember(carol);
      const team = at.fake.guildChannel("team", [{ id: carol.id, type: OverwriteType.Member, allow: PermissionFlagsBits.ManageThreads }]);
      return at.fake.privateThread(team, "plans", [at.alice]);
    });
    await preview(manager.h);
    await until(() => textIn(manager.h, manager.channel).includes("read_channel"), "the note and the trace in the thread");
    expect(secretOutsideTheDm(manager.h)).toEqual([]);
  });

  it("CROSS_CHANNEL_READS=private sends it by DM at once", async () => {
    const { h } = await askQuotingBoard({ CROSS_CHANNEL_READS: "private" });
    await until(() => dmTexts(h).some((m) => m.content.includes("Initech")), "the answer by DM");
    await until(() => textIn(h, h.fake.general).includes("privately"), "the note");
    expect(textIn(h, h.fake.general)).not.toContain("Initech");
  });

  it("CROSS_CHANNEL_READS=allow posts it in #general, whoever can view what, and asks no one", async () => {
    const { h } = await askQuotingBoard({ CROSS_CHANNEL_READS: "allow" });
    await until(() => textIn(h, h.fake.general).includes("Initech"), "the answer in #general");
    expect(textIn(h, h.fake.general)).not.toContain("I asked");
    expect(dmTexts(h)).toHaveLength(0);
  });

  it("a restart while held posts nothing, and the button works after it", async () => {
    const { h } = await askQuotingBoard();
    const card = await preview(h);
    await until(() => textIn(h, h.fake.general).includes("I asked"), "the note");
    await h.restart([]);
    expect(textIn(h, h.fake.general)).not.toContain("Initech");
    h.fake.clickButton(card.message.id, card.button("p"), h.alice);
    await until(() => textIn(h, h.fake.general).includes("Initech"), "the answer after the restart");
  });
});
