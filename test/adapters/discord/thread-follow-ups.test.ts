// Replies without a mention in the thread the bot started on its answer: answered there; left
// alone in other threads, at a channel's top level, when they address someone else, and where
// the channel's settings keep the old rule (threadFollowUps: mention).
import { ChannelType } from "discord.js";
import { describe, expect, it } from "vitest";
import { intakeIdFor } from "../../../src/runs/intake/intake-store.js";
import type { FakeChannel } from "../../support/fake-discord.js";
import { nextSnowflake } from "../../support/fake-discord-payloads.js";
import { startDiscordHarness, type DiscordHarness } from "../../support/discord-harness.js";
import { settingsOf } from "../../support/governance-harness.js";
import { say } from "../../support/model-scripted.js";
import { usePerTest } from "../../support/per-test.js";
import { until } from "../../support/until.js";

const perTest = usePerTest();

/** Alice asked in #general and got her answer, with its trace in a thread the bot started on it. */
async function answeredWithThread(settings?: unknown): Promise<{ h: DiscordHarness; thread: FakeChannel }> {
  const h = perTest.closeAfter(
    await startDiscordHarness({ script: [], whenExhausted: say("Done."), ...(settings ? { settings: () => settingsOf(settings) } : {}) }),
  );
  h.fake.userMessage(h.alice, "summarise #releases", { mentionBot: true });
  const started = await h.fake.waitForCall("POST", new RegExp(`^/channels/${h.fake.general.id}/messages/\\d+/threads$`));
  const threadId = /messages\/(\d+)\/threads$/.exec(started.path)![1]!;
  await h.fake.waitForCall("POST", new RegExp(`^/channels/${threadId}/messages$`));
  return { h, thread: h.fake.channel(threadId)! };
}

const answeredIn = (h: DiscordHarness, channel: FakeChannel) =>
  h.fake.waitForCall("PATCH", new RegExp(`^/channels/${channel.id}/messages/\\d+$`), (call) => call.body.content === "Done.");
const taken = async (h: DiscordHarness, messageId: string) =>
  (await h.store.get(`intake:${intakeIdFor("discord", messageId)}`)) !== undefined;

describe("Discord: replies in the bot's thread without a mention", () => {
  it("a reply in the bot's answer thread is a question, answered in that thread", async () => {
    const { h, thread } = await answeredWithThread();
    h.fake.userMessage(h.alice, "and for last week?", { channel: thread });
    await answeredIn(h, thread);
    expect(h.model.requests).toHaveLength(2);
    expect(h.model.requests[1]!.messages.at(-1)).toEqual({ role: "user", content: "and for last week?" });
  });

  it("a reply that mentions someone else, a reply in someone else's thread and a channel message are not for it", async () => {
    const { h, thread } = await answeredWithThread();
    const addressed = h.fake.userMessage(h.bob, `<@${h.alice.id}> can you check?`, { channel: thread, mentions: [h.alice] });
    const theirs = h.fake.addChannel({
      id: nextSnowflake(),
      name: "a person's thread",
      type: ChannelType.PublicThread,
      guildId: h.fake.guild.id,
      parentId: h.fake.general.id,
      ownerId: h.alice.id,
    });
    const elsewhere = h.fake.userMessage(h.alice, "lunch?", { channel: theirs });
    const top = h.fake.userMessage(h.alice, "good morning");
    // Something that is answered, after them: by then they were looked at.
    h.fake.userMessage(h.alice, "one more", { channel: thread });
    await until(() => h.model.requests.length === 2, "the reply after them");
    await answeredIn(h, thread);
    for (const message of [addressed, elsewhere, top]) expect(await taken(h, message.id)).toBe(false);
    expect(h.model.requests[1]!.messages.at(-1)).toEqual({ role: "user", content: "one more" });
  });

  it("threadFollowUps: mention keeps today's rule: only a mention in the thread reaches the bot", async () => {
    const { h, thread } = await answeredWithThread({ channels: { default: { threadFollowUps: "mention" } } });
    const reply = h.fake.userMessage(h.alice, "and for last week?", { channel: thread });
    h.fake.userMessage(h.alice, "and now?", { channel: thread, mentionBot: true });
    await answeredIn(h, thread);
    expect(await taken(h, reply.id)).toBe(false);
    expect(h.model.requests.map((request) => request.messages.at(-1)?.content)).toEqual(["summarise #releases", "and now?"]);
  });
});
