import { afterEach, describe, expect, it } from "vitest";
import { say } from "../../support/model-scripted.js";
import { originalPath, startDiscordHarness, type DiscordHarness } from "../../support/discord-harness.js";

let harness: DiscordHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const RETRY_AFTER_MS = 300;

describe("Discord rate limits", () => {
  it("retries a rate-limited edit once, before anything else is edited", async () => {
    harness = await startDiscordHarness({ script: [say("Answer after a rate limit.")] });
    const { fake, alice } = harness;
    fake.rateLimitNext("PATCH", /\/messages\/@original$/, RETRY_AFTER_MS);
    const { token } = fake.slashCommand("ask", alice, { values: { question: "anything" } });

    await fake.waitForCall(
      "PATCH",
      originalPath(fake, token),
      (request) => request.status === 200 && request.body.content === "Answer after a rate limit.",
    );
    const edits = fake.callsTo("PATCH", originalPath(fake, token));
    const limited = edits.filter((request) => request.status === 429);
    expect(limited).toHaveLength(1);
    // The same edit is sent again once, right after the 429, and nothing to that message comes in between.
    const sameEdit = edits.filter((request) => JSON.stringify(request.body) === JSON.stringify(limited[0]!.body));
    expect(sameEdit.map((request) => request.status)).toEqual([429, 200]);
    expect(edits.indexOf(sameEdit[1]!)).toBe(edits.indexOf(limited[0]!) + 1);
  });

  it("retries a rate-limited reply to a mention, so the answer still arrives once", async () => {
    harness = await startDiscordHarness({ script: [say("Still here.")] });
    const { fake, alice } = harness;
    const path = new RegExp(`^/channels/${fake.general.id}/messages$`);
    fake.rateLimitNext("POST", path, RETRY_AFTER_MS);
    fake.userMessage(alice, "hi", { mentionBot: true });

    await fake.waitForCall("PATCH", /^\/channels\/\d+\/messages\/\d+$/, (request) => request.body.content === "Still here.");
    const posts = fake.callsTo("POST", path);
    expect(posts.map((request) => request.status)).toEqual([429, 200]);
    expect(posts[1]!.body).toEqual(posts[0]!.body);
    expect(fake.messagesIn(fake.general.id).filter((message) => message.author.id === fake.bot.id)).toHaveLength(1);
  });
});
