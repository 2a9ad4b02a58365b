// Discord's own part of 👍 / 👎, end to end through discord.js: the answer carries the buttons; a
// vote keeps Discord's conversation and a link to the answer's message; /feedback answers in its own
// reply with a link to each vote's message. A vote thanked and kept, and who may list them, are the
// surfaces' contract (test/adapters/surface-contract-feedback.test.ts).
import { afterEach, describe, expect, it } from "vitest";
import { say } from "../../support/model-scripted.js";
import { originalPath, startDiscordHarness, webhookPath, type DiscordHarness } from "../../support/discord-harness.js";

let harness: DiscordHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function answered(h: DiscordHarness) {
  const { token } = h.fake.slashCommand("ask", h.alice, { values: { question: "hello?" } });
  const answer = await h.fake.waitForCall("PATCH", originalPath(h.fake, token), (request) => request.body.content === "Hello there.");
  const [up, down] = (answer.body.components[0].components as { custom_id: string }[]).map((button) => button.custom_id);
  const message = h.fake.messagesIn(h.fake.general.id).find((candidate) => candidate.content === "Hello there.")!;
  return { messageId: message.id, up: up!, down: down! };
}

describe("Discord feedback", () => {
  it("keeps a vote from the answer's buttons with Discord's conversation and a link to the answer's message", async () => {
    harness = await startDiscordHarness({ script: [say("Hello there.")] });
    const { fake, bob } = harness;
    const answer = await answered(harness);
    const click = fake.clickButton(answer.messageId, answer.down, bob);
    const thanks = await fake.waitForCall(
      "POST",
      webhookPath(fake, click.token),
      (request) => request.body.content === "Thanks for the feedback.",
    );
    expect(thanks.body.flags).toBe(64);
    const [entry] = await harness.service.feedback.recent(5);
    expect(entry).toMatchObject({
      surface: "discord",
      conversationKey: `discord:${fake.guild.id}:${fake.general.id}`,
      person: { id: bob.id },
      rating: "down",
      guard: "none",
      link: `https://discord.com/channels/${fake.guild.id}/${fake.general.id}/${answer.messageId}`,
    });
  });

  it("lists the votes for an approver with /feedback in its own reply, with a link to each vote's message", async () => {
    harness = await startDiscordHarness({ script: [say("Hello there.")] });
    const { fake, alice, carol } = harness;
    const answer = await answered(harness);
    const click = fake.clickButton(answer.messageId, answer.up, alice);
    const thanks = await fake.waitForCall(
      "POST",
      webhookPath(fake, click.token),
      (request) => request.body.content === "Thanks for the feedback.",
    );
    expect(thanks.body.flags).toBe(64);

    const listed = fake.slashCommand("feedback", carol);
    const listing = await fake.waitForCall("PATCH", originalPath(fake, listed.token), (request) =>
      String(request.body.content).startsWith("Feedback so far"),
    );
    expect(listing.body.content).toContain("👍 1 · 👎 0");
    expect(listing.body.content).toContain(
      `👍 <@${alice.id}> · https://discord.com/channels/${fake.guild.id}/${fake.general.id}/${answer.messageId} · answered`,
    );
    expect(fake.callsTo("POST", webhookPath(fake, listed.token))).toHaveLength(0);
  });
});
