// An interaction's token lives 15 minutes; a run can wait longer (in its conversation's queue,
// or on an approval). Where the answer goes is chosen when it is posted: the interaction's
// webhook while its token lives, else (and once Discord refuses the token) a message in the
// channel that names the requester and pings only them. Each case here lost the answer before.
import { afterEach, describe, expect, it } from "vitest";
import { call, say } from "../../support/model-scripted.js";
import { originalPath, startDiscordHarness, webhookPath, type DiscordHarness } from "../../support/discord-harness.js";

let harness: DiscordHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const inGeneral = (h: DiscordHarness) => new RegExp(`^/channels/${h.fake.general.id}/messages$`);

describe("a Discord answer after its interaction's token expired", () => {
  it("goes to the channel, naming the requester and pinging only them, when Discord refuses the token (401)", async () => {
    let open: () => void = () => {};
    harness = await startDiscordHarness({ script: [say("Here is the answer.")], gate: new Promise<void>((resolve) => (open = resolve)) });
    const { fake, alice } = harness;
    const { token } = fake.slashCommand("ask", alice, { values: { question: "slow one" } });
    await fake.waitForCall("PATCH", originalPath(fake, token), (call) => call.body.content === "⏳ Working… step 1");
    fake.expireInteraction(token);
    open();

    const answer = await fake.waitForCall("POST", inGeneral(harness), (call) => String(call.body.content).includes("Here is the answer."));
    expect(answer.body.content).toBe(`<@${alice.id}> Here is the answer.`);
    expect(answer.body.allowed_mentions).toEqual({ parse: [], replied_user: false, users: [alice.id] });
    expect(fake.callsTo("PATCH", originalPath(fake, token)).filter((call) => call.status === 401).length).toBeGreaterThan(0);
  });

  it("goes to the channel without trying the webhook when the token is older than 14 minutes by the bot's clock", async () => {
    let now = Date.now();
    let open: () => void = () => {};
    harness = await startDiscordHarness({
      script: [say("Late but here.")],
      clock: () => now,
      gate: new Promise<void>((resolve) => (open = resolve)),
    });
    const { fake, alice } = harness;
    const { token } = fake.slashCommand("ask", alice, { values: { question: "queued for long" } });
    await fake.waitForCall("PATCH", originalPath(fake, token), (call) => call.body.content === "⏳ Working… step 1");
    const webhookCalls = fake.callsTo("PATCH", originalPath(fake, token)).length;
    now += 14 * 60_000 + 1;
    open();

    const answer = await fake.waitForCall("POST", inGeneral(harness), (call) => String(call.body.content).includes("Late but here."));
    expect(answer.body.content).toBe(`<@${alice.id}> Late but here.`);
    expect(fake.callsTo("PATCH", originalPath(fake, token))).toHaveLength(webhookCalls);
  });

  it("after an approval click whose token expired, the rest of the run answers in the channel", async () => {
    harness = await startDiscordHarness({
      script: [
        () => call("post_message", { channel: `<#${harness!.fake.random.id}>`, text: "hello" }),
        // Slow enough for the click's token to be gone by the time the answer goes out.
        { text: "Posted, as you approved.", delayMs: 300 },
      ],
    });
    const { fake, alice } = harness;
    const asked = fake.slashCommand("ask", alice, { values: { question: "post hello" } });
    const request = await fake.waitForCall(
      "POST",
      webhookPath(fake, asked.token),
      (call) => Array.isArray(call.body.components) && call.body.components.length > 0,
    );
    const approvalMessage = fake.messagesIn(fake.general.id).find((message) => message.content === request.body.content)!;
    const approve = (request.body.components[0].components as { custom_id: string }[])[0]!.custom_id;
    const click = fake.clickButton(approvalMessage.id, approve, alice);
    await fake.waitForCall("PATCH", originalPath(fake, click.token), (call) => String(call.body.content).includes("Approved by"));
    fake.expireInteraction(click.token);

    // The run's first channel message names and pings the requester; the answer then shows in it.
    const first = await fake.waitForCall("POST", inGeneral(harness));
    expect(first.body.content).toMatch(new RegExp(`^<@${alice.id}> `));
    expect(first.body.allowed_mentions).toMatchObject({ parse: [], users: [alice.id] });
    await fake.waitForCall(
      ["POST", "PATCH"],
      new RegExp(`^/channels/${fake.general.id}/messages(/\\d+)?$`),
      (call) => call.body.content === `<@${alice.id}> Posted, as you approved.`,
    );
  });
});
