// Discord as the real platform behaves, end to end through discord.js: a mention of the bot's
// managed role is a mention of the bot, and an approved write is sent once even when Discord
// answers it with a server error (the REST client would repeat it).
import { afterEach, describe, expect, it } from "vitest";
import { call, say } from "../../support/model-scripted.js";
import type { ModelRequest } from "../../../src/contracts/types.js";
import { askUntilApproval, startDiscordHarness, type DiscordHarness } from "../../support/discord-harness.js";

let harness: DiscordHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const lastTool = (request: ModelRequest) => {
  const tool = [...request.messages].reverse().find((message) => message.role === "tool");
  return tool?.role === "tool" ? tool.content : "(none)";
};

describe("Discord as the platform behaves", () => {
  it("answers a mention of its managed role, without the role in the question", async () => {
    harness = await startDiscordHarness({ script: [say("Hello via the role.")] });
    const { fake, alice } = harness;
    const question = fake.userMessage(alice, "are you there?", { mentionBotRole: true });
    const reply = await fake.waitForCall("POST", new RegExp(`^/channels/${fake.general.id}/messages$`));
    expect(reply.body.message_reference.message_id).toBe(question.id);
    await fake.waitForCall(
      "PATCH",
      new RegExp(`^/channels/${fake.general.id}/messages/`),
      (request) => request.body.content === "Hello via the role.",
    );
    expect(harness.model.requests[0]!.messages.at(-1)).toEqual({ role: "user", content: "are you there?" });
  });

  it("sends an approved post once when Discord answers it with a 500", async () => {
    harness = await startDiscordHarness({
      script: [
        () => call("post_message", { channel: harness!.fake.random.id, text: "Once." }),
        (request) => say(`Result: ${lastTool(request)}`),
      ],
    });
    const { fake, alice } = harness;
    const card = await askUntilApproval(harness, alice, "post once");
    const postPath = new RegExp(`^/channels/${fake.random.id}/messages$`);
    fake.failNext({ method: "POST", path: postPath, status: 500, body: { message: "Internal Server Error", code: 0 } });
    fake.clickButton(card.messageId, card.approve, alice);
    // Wherever the run's answer is shown (the click's follow-up or the original reply).
    const answer = await fake.waitForCall(["POST", "PATCH"], /^\/webhooks\//, (call) =>
      String(call.body?.content ?? "").startsWith("Result:"),
    );
    expect(fake.callsTo("POST", postPath)).toHaveLength(1);
    expect(answer.body.content).toMatch(/500|Internal Server Error/);
  });
});
