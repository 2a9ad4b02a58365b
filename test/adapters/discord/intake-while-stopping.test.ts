// Discord intake while the adapter stops: the gateway still delivers mentions during the drain,
// and Discord never sends them again, so each is recorded for the next start, not dropped.
import { expect, it } from "vitest";
import { say } from "../../support/model-scripted.js";
import { intakeIdFor } from "../../../src/runs/intake/intake-store.js";
import { startDiscordHarness } from "../../support/discord-harness.js";
import { until } from "../../support/until.js";

it("a mention that arrives while the adapter stops is recorded, not dropped", async () => {
  let open: () => void = () => {};
  const harness = await startDiscordHarness({
    script: [say("First.")],
    whenExhausted: say("Second."),
    gate: new Promise<void>((resolve) => (open = resolve)),
  });
  const { fake: discord, alice, bob } = harness;
  const asked = discord.slashCommand("ask", alice, { values: { question: "slow one" } });
  await discord.waitForCall("POST", new RegExp(`^/interactions/${asked.id}/`));
  const stopping = harness.adapter.stop();
  const mention = discord.userMessage(bob, "are you there?", { mentionBot: true });
  const key = `intake:${intakeIdFor("discord", mention.id)}`;
  let recorded: unknown;
  await until(() => {
    void harness.store.get(key).then((value) => (recorded = value));
    return recorded !== undefined;
  }, "the mention's record");
  expect(recorded).toMatchObject({ task: { text: "are you there?" } });
  open();
  await stopping;
  await harness.close();
});
