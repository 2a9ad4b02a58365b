import { afterEach, describe, expect, it } from "vitest";
import { say } from "../src/agent/model-scripted.js";
import { originalPath, startDiscordHarness, type DiscordHarness } from "./support/fake-discord-harness.js";

let harness: DiscordHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const RETRY_AFTER_MS = 300;

describe("Discord rate limits", () => {
  it("retries an edit after the delay a 429 asked for", async () => {
    harness = await startDiscordHarness({ script: [say("Answer after a rate limit.")] });
    const { fake, alice } = harness;
    fake.rateLimitNext("PATCH", /\/messages\/@original$/, RETRY_AFTER_MS);
    const { token } = fake.slashCommand("ask", alice, { values: { question: "anything" } });

    await fake.waitForCall("PATCH", originalPath(fake, token), (request) => request.status === 200 && request.body.content === "Answer after a rate limit.");
    const edits = fake.callsTo("PATCH", originalPath(fake, token));
    const limited = edits.findIndex((request) => request.status === 429);
    expect(limited).toBeGreaterThanOrEqual(0);
    const retry = edits[limited + 1]!;
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual(edits[limited]!.body);
    expect(retry.at - edits[limited]!.at).toBeGreaterThanOrEqual(RETRY_AFTER_MS);
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
    expect(posts[1]!.at - posts[0]!.at).toBeGreaterThanOrEqual(RETRY_AFTER_MS);
    expect(fake.messagesIn(fake.general.id).filter((message) => message.author.id === fake.bot.id)).toHaveLength(1);
  });
});
