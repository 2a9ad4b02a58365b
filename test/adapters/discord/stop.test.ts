// The Stop button on Discord, end to end through discord.js: the progress message of a run
// carries it; the requester's click ends a run whose model call hangs with the summary and
// "Stopped by <name>."; anyone else is told privately and nothing stops.
import { afterEach, describe, expect, it } from "vitest";
import { say } from "../../support/model-scripted.js";
import { followUpWith, originalPath, startDiscordHarness, webhookPath, type DiscordHarness } from "../../support/discord-harness.js";

let harness: DiscordHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const never = new Promise<void>(() => {});

async function askAndFindStop(h: DiscordHarness): Promise<{ token: string; messageId: string; customId: string }> {
  const { fake, alice } = h;
  const { token } = fake.slashCommand("ask", alice, { values: { question: "think hard" } });
  const progress = await fake.waitForCall("PATCH", originalPath(fake, token), (request) =>
    JSON.stringify(request.body.components ?? []).includes('"stop:'),
  );
  const customId = (progress.body.components[0].components as { custom_id: string }[])[0]!.custom_id;
  const message = fake
    .messagesIn(fake.general.id)
    .find((candidate) => candidate.interaction_metadata !== undefined || candidate.content === progress.body.content)!;
  return { token, messageId: message.id, customId };
}

describe("Discord Stop", () => {
  it("stops a run whose model call hangs when the requester clicks Stop, and shows who stopped it", async () => {
    harness = await startDiscordHarness({ script: [say("never sent")], gate: never });
    const { fake, alice } = harness;
    const run = await askAndFindStop(harness);
    const clicked = performance.now();
    fake.clickButton(run.messageId, run.customId, alice);
    const answer = await fake.waitForCall("PATCH", originalPath(fake, run.token), (request) =>
      String(request.body.content).includes("Stopped by alice."),
    );
    expect(performance.now() - clicked).toBeLessThan(2_000);
    expect(JSON.stringify(answer.body.components)).not.toContain('"stop:');
  });

  it("tells someone else privately that only the requester or an approver can stop it", async () => {
    harness = await startDiscordHarness({ script: [say("never sent")], gate: never });
    const { fake, bob } = harness;
    const run = await askAndFindStop(harness);
    const click = fake.clickButton(run.messageId, run.customId, bob);
    const note = await followUpWith(fake, click.token, (content) => content.startsWith("Only"));
    expect(note.body.content).toBe(`Only <@${harness.alice.id}> or an approver can stop this run.`);
    expect(note.body.flags).toBe(64);
    expect(
      fake.callsTo("PATCH", originalPath(fake, run.token)).some((request) => String(request.body.content).includes("Stopped by")),
    ).toBe(false);
    expect(fake.callsTo("POST", webhookPath(fake, run.token))).toHaveLength(0);
    fake.clickButton(run.messageId, run.customId, harness.alice);
    await fake.waitForCall("PATCH", originalPath(fake, run.token), (request) => String(request.body.content).includes("Stopped by alice."));
  });
});
