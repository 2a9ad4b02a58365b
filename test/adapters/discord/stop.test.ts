// Where Stop is on Discord, end to end through discord.js: the progress message of a run (the
// deferred reply) carries it, and the stopped run's answer there no longer does. Who may stop a
// run and what it says are the surfaces' contract (test/adapters/surface-contract-stop.test.ts).
import { afterEach, describe, expect, it } from "vitest";
import { say } from "../../support/model-scripted.js";
import { originalPath, startDiscordHarness, type DiscordHarness } from "../../support/discord-harness.js";

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
  it("carries Stop on the run's progress message, and edits it away with the answer once the requester stopped the run", async () => {
    harness = await startDiscordHarness({ script: [say("never sent")], gate: never });
    const { fake, alice } = harness;
    const run = await askAndFindStop(harness);
    fake.clickButton(run.messageId, run.customId, alice);
    const answer = await fake.waitForCall("PATCH", originalPath(fake, run.token), (request) =>
      String(request.body.content).includes("Stopped by alice."),
    );
    expect(JSON.stringify(answer.body.components)).not.toContain('"stop:');
  });
});
