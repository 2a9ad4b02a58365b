// The settings file through the real Discord adapter (discord.js against the fake Discord):
// refusals told privately (ephemeral for an interaction, a DM for a mention), with no model
// call; blocked roles; `/audit` refused to non-admins; `/settings` for anyone.
import { afterEach, describe, expect, it } from "vitest";
import { say } from "../../support/model-scripted.js";
import { REFUSED_IN_PUBLIC } from "../../../src/adapters/core/texts.js";
import { originalPath, startDiscordHarness, webhookPath, type DiscordHarness } from "../../support/discord-harness.js";
import { createLongTermMemory } from "../../../src/memory/long-term-memory.js";
import { silentLogger } from "../../../src/logger.js";
import { settingsOf } from "../../support/governance-harness.js";

let harness: DiscordHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const EPHEMERAL = 64;

async function start(): Promise<DiscordHarness> {
  harness = await startDiscordHarness({
    script: [],
    whenExhausted: say("an answer"),
    // The approvers' role stands in for any role: discord.js only reports roles the guild has.
    settings: ({ bob, carol, approverRole }) =>
      settingsOf({ access: { admins: { discord: [carol.id] }, block: { users: [bob.id], roles: [approverRole] } } }),
  });
  return harness;
}

const callbackOf = (h: DiscordHarness, id: string) => h.fake.waitForCall("POST", new RegExp(`^/interactions/${id}/[^/]+/callback$`));

describe("Discord refusals", () => {
  it("a blocked user's /ask is refused privately (its public placeholder goes), with no model request", async () => {
    const h = await start();
    const { id, token } = h.fake.slashCommand("ask", h.bob, { values: { question: "hello" } });
    expect((await callbackOf(h, id)).body).toEqual({ type: 5, data: { flags: 0 } });
    const refusal = await h.fake.waitForCall("POST", webhookPath(h.fake, token));
    expect(refusal.body).toMatchObject({ flags: EPHEMERAL, content: expect.stringMatching(/not allowed to use this bot/) });
    expect(h.fake.callsTo("DELETE", new RegExp(`^/webhooks/${h.fake.applicationId}/${token}/messages/@original$`))).toHaveLength(1);
    expect(h.model.requests).toHaveLength(0);
  });

  it("a member of a blocked role is refused too; others are answered", async () => {
    const h = await start();
    const blocked = h.fake.slashCommand("ask", h.alice, { values: { question: "hello" }, roles: [h.approverRole] });
    expect((await h.fake.waitForCall("POST", webhookPath(h.fake, blocked.token))).body).toMatchObject({ flags: EPHEMERAL });
    const allowed = h.fake.slashCommand("ask", h.alice, { values: { question: "hello" } });
    expect((await callbackOf(h, allowed.id)).body).toEqual({ type: 5, data: { flags: 0 } });
    await h.fake.waitForCall("PATCH", /\/messages\/@original$/, (call) => call.body.content === "an answer");
    expect(h.model.requests).toHaveLength(1);
  });

  it("a blocked user's mention is refused by DM, with nothing in the channel and no model request", async () => {
    const h = await start();
    h.fake.userMessage(h.bob, "hello", { mentionBot: true });
    await h.fake.waitForCall("POST", /^\/users\/@me\/channels$/);
    const dm = h.fake.dmOf(h.bob)!;
    const refusal = await h.fake.waitForCall("POST", new RegExp(`^/channels/${dm.id}/messages$`));
    expect(refusal.body.content).toMatch(/not allowed to use this bot/);
    expect(h.fake.callsTo("POST", new RegExp(`^/channels/${h.fake.general.id}/messages$`))).toHaveLength(0);
    expect(h.model.requests).toHaveLength(0);
  });

  it("when the person takes no DMs, the refusal is a reply to the mention that names no details", async () => {
    const h = await start();
    h.fake.refuseDirectMessages(h.bob);
    const message = h.fake.userMessage(h.bob, "hello", { mentionBot: true });
    const reply = await h.fake.waitForCall("POST", new RegExp(`^/channels/${h.fake.general.id}/messages$`));
    expect(reply.body).toMatchObject({ content: REFUSED_IN_PUBLIC, message_reference: { message_id: message.id } });
    expect(h.model.requests).toHaveLength(0);
  });
});

describe("Discord commands", () => {
  it("/audit is refused to a non-admin and shown to an admin, ephemerally", async () => {
    const h = await start();
    h.fake.slashCommand("audit", h.alice);
    await h.fake.waitForCall(
      "PATCH",
      /\/messages\/@original$/,
      (call) =>
        call.body.content ===
        `Only the bot's admins can see the audit log. An admin adds your id "${h.alice.id}" to access.admins.discord in a settings file (bot.settings.json in the working directory, or the one BOT_SETTINGS names).`,
    );
    h.fake.slashCommand("audit", h.carol);
    await h.fake.waitForCall(
      "PATCH",
      /\/messages\/@original$/,
      (call) => call.body.content === "The audit log is empty: no approvals or writes yet.",
    );
    const deferrals = h.fake.callsTo("POST", /\/callback$/).map((call) => call.body);
    expect(deferrals).toEqual([
      { type: 5, data: { flags: EPHEMERAL } },
      { type: 5, data: { flags: EPHEMERAL } },
    ]);
  });

  it("/settings shows the channel's settings to anyone", async () => {
    const h = await start();
    h.fake.slashCommand("settings", h.alice);
    const shown = await h.fake.waitForCall("PATCH", /\/messages\/@original$/);
    expect(shown.body.content).toMatch(/^Settings here:\n• model: gpt-4o-mini\n• tools: all tools/);
  });

  it("/memory, /forget and /tools refuse a blocked person privately: nothing is shown and nothing is forgotten", async () => {
    const h = await start();
    const key = `discord:${h.fake.guild.id}:${h.fake.general.id}`;
    await createLongTermMemory(h.store, { maxFacts: 10, logger: silentLogger }).remember(key, ["The launch code is 1234"]);
    for (const name of ["memory", "forget", "tools"]) {
      const { token } = h.fake.slashCommand(name, h.bob);
      const told = await h.fake.waitForCall("PATCH", originalPath(h.fake, token));
      expect(told.body.content).toMatch(/not allowed to use this bot/);
    }
    expect(JSON.stringify(h.fake.calls)).not.toContain("launch code");
    expect(await h.service.memory.facts(key)).toHaveLength(1);
  });
});
