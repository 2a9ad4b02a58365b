import { ChannelType } from "discord.js";
import { afterEach, describe, expect, it } from "vitest";
import { call, say } from "../../support/model-scripted.js";
import { nextSnowflake } from "../../support/fake-discord-payloads.js";
import { startDiscordHarness, type DiscordHarness } from "../../support/discord-harness.js";

let harness: DiscordHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const channelPosts = (h: DiscordHarness, channelId: string) => h.fake.callsTo("POST", new RegExp(`^/channels/${channelId}/messages$`));

describe("Discord mentions and DMs", () => {
  it("replies to a mention, edits the reply into the answer and starts a trace thread on it", async () => {
    harness = await startDiscordHarness({ script: [call("calculator", { expression: "2+2" }), say("It is 4.")] });
    const { fake, alice } = harness;
    const question = fake.userMessage(alice, "what is 2+2?", { mentionBot: true });

    const working = await fake.waitForCall("POST", new RegExp(`^/channels/${fake.general.id}/messages$`));
    expect(working.body.message_reference.message_id).toBe(question.id);
    expect(working.body.content).toMatch(/^⏳/);
    expect(working.body.allowed_mentions).toEqual({ parse: [], replied_user: false });
    const reply = fake.messagesIn(fake.general.id).find((message) => message.message_reference?.message_id === question.id)!;
    const answer = await fake.waitForCall(
      "PATCH",
      new RegExp(`^/channels/${fake.general.id}/messages/${reply.id}$`),
      (request) => request.body.content === "It is 4.",
    );
    expect(answer.body.allowed_mentions).toEqual({ parse: [], replied_user: false });

    const thread = await fake.waitForCall("POST", new RegExp(`^/channels/${fake.general.id}/messages/${reply.id}/threads$`));
    expect(thread.body.name).toBe("Trace: what is 2+2?");
    const trace = await fake.waitForCall("POST", new RegExp(`^/channels/${reply.id}/messages$`));
    expect(trace.body.content).toContain("calculator");
    expect(harness.model.requests[0]!.messages.at(-1)).toEqual({ role: "user", content: "what is 2+2?" });
  });

  it("never answers itself or other bots", async () => {
    harness = await startDiscordHarness({ script: [say("Only for alice.")] });
    const { fake, alice, bot } = { ...harness, bot: harness.fake.bot };
    fake.userMessage(bot, "talking to myself", { mentionBot: true });
    fake.userMessage({ id: nextSnowflake(), username: "other-bot", bot: true }, "hey bot", { mentionBot: true });
    const question = fake.userMessage(alice, "hello", { mentionBot: true });

    await fake.waitForCall(
      "PATCH",
      new RegExp(`^/channels/${fake.general.id}/messages/\\d+$`),
      (request) => request.body.content === "Only for alice.",
    );
    const replies = channelPosts(harness, fake.general.id);
    expect(replies).toHaveLength(1);
    expect(replies[0]!.body.message_reference.message_id).toBe(question.id);
    expect(harness.model.requests).toHaveLength(1);
  });

  it("ignores channel messages that do not mention it", async () => {
    harness = await startDiscordHarness({ script: [say("answered")] });
    const { fake, alice } = harness;
    fake.userMessage(alice, "just chatting");
    fake.userMessage(alice, "now you", { mentionBot: true });
    await fake.waitForCall("PATCH", /^\/channels\/\d+\/messages\/\d+$/, (request) => request.body.content === "answered");
    expect(channelPosts(harness, fake.general.id)).toHaveLength(1);
    expect(harness.model.requests[0]!.messages.at(-1)).toEqual({ role: "user", content: "now you" });
  });

  it("answers every DM and posts the trace below the answer (DMs have no threads)", async () => {
    harness = await startDiscordHarness({ script: [call("calculator", { expression: "3*3" }), say("Nine.")] });
    const { fake, alice } = harness;
    const dm = fake.dmChannel(alice);
    fake.userMessage(alice, "3*3?", { channel: dm });

    await fake.waitForCall("PATCH", new RegExp(`^/channels/${dm.id}/messages/\\d+$`), (request) => request.body.content === "Nine.");
    const trace = await fake.waitForCall("POST", new RegExp(`^/channels/${dm.id}/messages$`), (request) =>
      String(request.body.content).startsWith("Steps:"),
    );
    expect(trace.body.content).toContain("calculator");
    expect(fake.callsTo("POST", /\/threads$/)).toHaveLength(0);
  });

  it("keeps a thread its own conversation", async () => {
    harness = await startDiscordHarness({ script: [say("first answer"), say("second answer"), say("third answer")] });
    const { fake, alice } = harness;
    const thread = fake.addChannel({
      id: nextSnowflake(),
      name: "a thread",
      type: ChannelType.PublicThread,
      guildId: fake.guild.id,
      parentId: fake.general.id,
    });

    fake.userMessage(alice, "in the channel", { mentionBot: true });
    await fake.waitForCall("PATCH", /^\/channels\/\d+\/messages\/\d+$/, (request) => request.body.content === "first answer");
    fake.userMessage(alice, "in the thread", { mentionBot: true, channel: thread });
    await fake.waitForCall(
      "PATCH",
      new RegExp(`^/channels/${thread.id}/messages/\\d+$`),
      (request) => request.body.content === "second answer",
    );
    fake.userMessage(alice, "back in the channel", { mentionBot: true });
    await fake.waitForCall("PATCH", /^\/channels\/\d+\/messages\/\d+$/, (request) => request.body.content === "third answer");

    const contents = (index: number) => harness!.model.requests[index]!.messages.map((message) => message.content);
    expect(contents(1)).not.toContain("in the channel");
    expect(contents(2)).toContain("in the channel");
    expect(contents(2)).toContain("first answer");
    expect(contents(2)).not.toContain("in the thread");
  });

  it("asks for a question when the mention has none", async () => {
    harness = await startDiscordHarness({ script: [] });
    const { fake, alice } = harness;
    fake.userMessage(alice, "", { mentionBot: true });
    const reply = await fake.waitForCall("POST", new RegExp(`^/channels/${fake.general.id}/messages$`));
    expect(reply.body.content).toMatch(/Ask me something/);
    expect(harness.model.requests).toHaveLength(0);
  });
});
