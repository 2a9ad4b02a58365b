// A Discord thread (or forum post) is its own conversation but is governed by the channel it
// belongs to: a blocked channel's threads are blocked, a thread shares its channel's limits, and
// its settings are its own entry, then its channel's, then `default`. Each case here failed
// before threads carried their parent (a thread was a channel of its own to governance).
import { ChannelType } from "discord.js";
import { afterEach, describe, expect, it } from "vitest";
import { say } from "../../support/model-scripted.js";
import type { FakeChannel } from "../../support/fake-discord.js";
import { nextSnowflake } from "../../support/fake-discord-payloads.js";
import { startDiscordHarness, type DiscordHarness } from "../../support/discord-harness.js";
import { settingsOf } from "../../support/governance-harness.js";
import { until } from "../../support/until.js";

let harness: DiscordHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** A thread the bot has not seen yet (created after it connected): it learns the parent from Discord. */
function threadIn(h: DiscordHarness, parent: FakeChannel, id = nextSnowflake(), type = ChannelType.PublicThread): FakeChannel {
  return h.fake.addChannel({ id, name: "a thread", type, guildId: h.fake.guild.id, parentId: parent.id });
}

const answered = (h: DiscordHarness, channel: FakeChannel, content: string) =>
  h.fake.waitForCall("PATCH", new RegExp(`^/channels/${channel.id}/messages/\\d+$`), (call) => call.body.content === content);

describe("Discord threads and forum posts", () => {
  it("are blocked with the channel they belong to", async () => {
    harness = await startDiscordHarness({
      script: [],
      whenExhausted: say("an answer"),
      settings: ({ carol, fake }) => settingsOf({ access: { admins: { discord: [carol.id] }, block: { channels: [fake.general.id] } } }),
    });
    const h = harness;
    const thread = threadIn(h, h.fake.general);
    h.fake.userMessage(h.alice, "hello from the thread", { mentionBot: true, channel: thread });
    await h.fake.waitForCall("POST", /^\/users\/@me\/channels$/);
    const refusal = await h.fake.waitForCall("POST", new RegExp(`^/channels/${h.fake.dmOf(h.alice)!.id}/messages$`));
    expect(refusal.body.content).toMatch(/don't answer in this channel/);
    const asked = h.fake.slashCommand("ask", h.alice, { channel: threadIn(h, h.fake.general), values: { question: "and here?" } });
    await h.fake.waitForCall("POST", new RegExp(`^/webhooks/${h.fake.applicationId}/${asked.token}$`), (call) =>
      /don't answer in this channel/.test(String(call.body.content)),
    );
    expect(h.model.requests).toHaveLength(0);
    // Another channel's thread is answered.
    const elsewhere = threadIn(h, h.fake.random);
    h.fake.userMessage(h.alice, "hello", { mentionBot: true, channel: elsewhere });
    await answered(h, elsewhere, "an answer");
  });

  it("share the limits of the channel they belong to", async () => {
    harness = await startDiscordHarness({
      script: [],
      whenExhausted: say("an answer"),
      settings: () => settingsOf({ limits: { channel: { runsPerMinute: 1 } } }),
    });
    const h = harness;
    h.fake.userMessage(h.alice, "first", { mentionBot: true });
    await until(() => h.model.requests.length === 1, "the first run");
    const thread = threadIn(h, h.fake.general);
    h.fake.userMessage(h.bob, "second, in a new thread", { mentionBot: true, channel: thread });
    await h.fake.waitForCall("POST", /^\/channels\/\d+\/messages$/, (call) =>
      /this channel's limit of 1 requests a minute/.test(call.body.content),
    );
    expect(h.model.requests).toHaveLength(1);
  });

  it("take their own settings entry, then their channel's, then `default`", async () => {
    const own = nextSnowflake();
    harness = await startDiscordHarness({
      script: [],
      whenExhausted: say("an answer"),
      settings: ({ fake }) =>
        settingsOf({
          channels: {
            default: { systemPrompt: "You are the default persona." },
            [fake.general.id]: { systemPrompt: "You are the general persona." },
            [own]: { systemPrompt: "You are the thread's own persona." },
          },
        }),
    });
    const h = harness;
    const persona = (index: number) => String(h.model.requests[index]!.messages[0]!.content);
    const plain = threadIn(h, h.fake.general);
    h.fake.userMessage(h.alice, "hi", { mentionBot: true, channel: plain });
    await answered(h, plain, "an answer");
    expect(persona(0)).toContain("You are the general persona.");
    const post = threadIn(h, h.fake.general, own, ChannelType.PublicThread);
    h.fake.userMessage(h.alice, "hi", { mentionBot: true, channel: post });
    await answered(h, post, "an answer");
    expect(persona(1)).toContain("You are the thread's own persona.");
    const forum = h.fake.addChannel({ id: nextSnowflake(), name: "ideas", type: ChannelType.GuildForum, guildId: h.fake.guild.id });
    const idea = threadIn(h, forum);
    h.fake.userMessage(h.alice, "hi", { mentionBot: true, channel: idea });
    await answered(h, idea, "an answer");
    expect(persona(2)).toContain("You are the default persona.");
  });
});
