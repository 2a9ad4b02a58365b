// While a surface stops (a deploy), every click and every command that still reaches the core
// gets the same answer, privately: come back in a moment. Slack used to refuse only approval
// clicks then (a Stop or a vote went on), Discord every click; now the core's one rule answers
// for both, click by click.
import { afterEach, describe, expect, it } from "vitest";
import { say } from "../support/model-scripted.js";
import { ScriptedModel } from "../support/model-scripted.js";
import type { SurfaceCore } from "../../src/adapters/core/inbound.js";
import type { Spot } from "../../src/adapters/core/spot.js";
import { RESTARTING_CLICK, RESTARTING_COMMAND } from "../../src/adapters/core/texts.js";
import { discordAsked } from "../support/discord-origins.js";
import { startDiscordHarness, type DiscordHarness } from "../support/discord-harness.js";
import { startSlackHarness, type SlackHarness } from "../support/slack-harness.js";
import { slackAsked } from "../support/slack-origins.js";
import { until } from "../support/until.js";

let slack: SlackHarness | undefined;
let discord: DiscordHarness | undefined;
afterEach(async () => {
  await slack?.close();
  await discord?.close();
  slack = undefined;
  discord = undefined;
});

/** Every click kind and a command, as a person sends them once the surface stopped taking events. */
async function clickEverything<C>(core: SurfaceCore<C>, at: Spot, clicked: C): Promise<void> {
  await core.decide({ at, clicked, runId: "run_1", callId: "call_1", decision: "approve" });
  await core.stop({ at, clicked, runId: "run_1" });
  await core.feedback({ at, clicked, runId: "run_1", guard: "none", rating: "up" });
  await core.command({ at, name: "memory", text: "" });
}

describe("while a surface stops", () => {
  it("Slack tells every click and command to come back, privately", async () => {
    slack = await startSlackHarness({ model: new ScriptedModel([say("unused")]) });
    await slack.adapter.stop();
    const at = { origin: slackAsked("U0BOB", "C0GENERAL") };
    await clickEverything(slack.adapter.core, at, { channel: "C0GENERAL", ts: "1700000000.000100" });
    const notes = slack.fake.callsTo("chat.postEphemeral").map((call) => [call.args.user, call.args.text]);
    expect(notes).toEqual([
      ["U0BOB", RESTARTING_CLICK],
      ["U0BOB", RESTARTING_CLICK],
      ["U0BOB", RESTARTING_CLICK],
      ["U0BOB", RESTARTING_COMMAND],
    ]);
  });

  it("Discord tells every click and command to come back, privately", async () => {
    discord = await startDiscordHarness({ script: [say("unused")] });
    const { fake, bob } = discord;
    fake.setMember(bob);
    await discord.adapter.stop();
    const at = { origin: discordAsked({ id: bob.id, name: bob.username }, { guild: fake.guild.id, channel: fake.general.id }) };
    const interaction = { application: fake.applicationId, token: "gone", at: 0, kind: "click" as const };
    await clickEverything(discord.adapter.core, at, { content: "", messageId: "1", interaction });
    await until(() => fake.dmOf(bob) !== undefined, "a DM channel with bob");
    const dm = fake.messagesIn(fake.dmOf(bob)!.id).map((message) => message.content);
    expect(dm).toEqual([RESTARTING_CLICK, RESTARTING_CLICK, RESTARTING_CLICK, RESTARTING_COMMAND]);
  });
});
