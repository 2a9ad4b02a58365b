// What the version before the surface core stored (test/fixtures/stored-before-surface-core.json,
// written by b0c2504's own code: paused approvals signed with its key, unfinished messages, audit
// entries) still loads and resumes: origins without a scope get theirs from their surface's
// codec, and the interaction token an old Discord place held moves to the reply handle, out of
// everything written from now on.
import { readFileSync } from "node:fs";
import { ChannelType } from "discord.js";
import { afterEach, describe, expect, it } from "vitest";
import { say, ScriptedModel } from "../../support/model-scripted.js";
import type { ModelRequest } from "../../../src/contracts/types.js";
import { createAuditLog } from "../../../src/governance/audit-log.js";
import { silentLogger } from "../../../src/logger.js";
import type { KeyValueStore } from "../../../src/memory/types.js";
import { upgradeAuditEntries } from "../../../src/adapters/core/audit-upgrade.js";
import { upgradeOrigin as upgradeDiscordOrigin } from "../../../src/adapters/discord/discord-place.js";
import { upgradeOrigin as upgradeSlackOrigin } from "../../../src/adapters/slack/slack-place.js";
import { startDiscordHarness, type DiscordHarness } from "../../support/discord-harness.js";
import { startSlackHarness, type SlackHarness } from "../../support/slack-harness.js";
import { mapStore } from "../../support/map-store.js";
import { fixturePath } from "../../support/repo-paths.js";

interface Fixture {
  readonly approvalSecret: string;
  readonly runs: Record<"slack" | "discord", { readonly runId: string; readonly callId: string }>;
  readonly values: Record<string, unknown>;
  readonly sets: Record<string, string[]>;
}

const fixture = JSON.parse(readFileSync(fixturePath("stored-before-surface-core.json"), "utf8")) as Fixture;
/** The fixture was written at this time (its approvals expire a day later). */
const WRITTEN_AT = 1_700_400_000_000;
const OLD_TOKENS = ["old-interaction-token-of-issue-18", "old-ask-token-of-issue-18"];
const DISCORD_CHANNEL = "1290000000000000002";
const DISCORD_REQUESTER = "1290000000000000003";

/** Answers each stored question by what it asks (a store holds both surfaces' records; each start answers both). */
const answering = (request: ModelRequest) => {
  const question = String([...request.messages].reverse().find((message) => message.role === "user")?.content);
  if (question === "what is 6*7?") return say("It is 42.");
  if (question === "what time is it in UTC?") return say("It is noon in UTC.");
  return say(`Posted the note from ${question.includes("slack") ? "slack" : "discord"}.`);
};

async function load(store: KeyValueStore): Promise<void> {
  for (const [key, value] of Object.entries(fixture.values)) await store.set(key, value);
  for (const [key, members] of Object.entries(fixture.sets)) for (const member of members) await store.addToSet(key, member);
}

let slack: SlackHarness | undefined;
let discord: DiscordHarness | undefined;
afterEach(async () => {
  await slack?.close();
  await discord?.close();
  slack = discord = undefined;
});

describe("records stored by the version before the surface core", () => {
  it("Slack: an old paused approval resumes when approved, and an old unfinished message is answered", async () => {
    slack = await startSlackHarness({
      model: new ScriptedModel([], { whenExhausted: answering }),
      env: { APPROVAL_SECRET: fixture.approvalSecret },
      clock: () => WRITTEN_AT + 60_000,
    });
    await load(slack.store);
    // A new process on that store: it takes up what was left unfinished.
    await slack.restart();
    const { runId, callId } = fixture.runs.slack;
    const decided = await slack.service.decide({ runId, callId, decision: "approve", decidedBy: { id: "U0ALICE" } }, () => {});
    expect(decided).toMatchObject({ kind: "resumed", decision: "approve" });
    const answer = await slack.fake.waitForCall("chat.postMessage", (call) => call.args.text === "Posted the note from slack.");
    expect(answer.args).toMatchObject({ channel: "C0GENERAL", thread_ts: "1700400000.000100" });

    const old = await slack.fake.waitForCall("chat.postMessage", (call) => call.args.text === "It is 42.");
    expect(old.args).toMatchObject({ channel: "C0GENERAL", thread_ts: "1700400200.000100" });
  });

  it("Discord: an old /ask whose token no longer works is answered in its channel, and an old approval resumes", async () => {
    discord = await startDiscordHarness({
      script: [],
      whenExhausted: answering,
      env: { APPROVAL_SECRET: fixture.approvalSecret },
      clock: () => WRITTEN_AT + 160_000,
    });
    const { fake } = discord;
    fake.addChannel({ id: DISCORD_CHANNEL, name: "old-channel", type: ChannelType.GuildText, guildId: fake.guild.id });
    await load(discord.store);
    const inChannel = new RegExp(`^/channels/${DISCORD_CHANNEL}/messages(/\\d+)?$`);
    // A new process on that store: it takes up what was left unfinished.
    await discord.restart([]);
    // The old token is unknown to Discord now: the answer goes to the channel, naming the requester.
    await fake.waitForCall(["POST", "PATCH"], inChannel, (call) => call.body.content === `<@${DISCORD_REQUESTER}> It is noon in UTC.`);

    const { runId, callId } = fixture.runs.discord;
    const decided = await discord.service.decide({ runId, callId, decision: "approve", decidedBy: { id: DISCORD_REQUESTER } }, () => {});
    expect(decided).toMatchObject({ kind: "resumed" });
    await fake.waitForCall(["POST", "PATCH"], inChannel, (call) => call.body.content === "Posted the note from discord.");

    // Nothing written since holds an old token: only the fixture's own entries did.
    const audit = await createAuditLog(discord.store).list({});
    const written = audit.filter((entry) => entry.seq > 2);
    expect(written.length).toBeGreaterThan(0);
    for (const token of OLD_TOKENS) expect(JSON.stringify(written)).not.toContain(token);
  });

  it("audit entries that kept an interaction token are rewritten at start without it, with a link instead", async () => {
    const store = mapStore();
    await load(store);
    const audit = createAuditLog(store);
    expect(JSON.stringify(await audit.list({}))).toContain(OLD_TOKENS[0]);
    await upgradeAuditEntries(audit, { slack: upgradeSlackOrigin, discord: upgradeDiscordOrigin }, silentLogger);
    const entries = await audit.list({});
    expect(entries).toHaveLength(2);
    for (const token of OLD_TOKENS) expect(JSON.stringify(entries)).not.toContain(token);
    const discordEntry = entries.find((entry) => entry.surface === "discord")!;
    expect(discordEntry.place).toEqual({
      guild: "1290000000000000001",
      channel: DISCORD_CHANNEL,
      channelKind: "text",
      interaction: "1290000000000000004",
    });
    expect(discordEntry.link).toBe(`https://discord.com/channels/1290000000000000001/${DISCORD_CHANNEL}`);
    expect(entries.find((entry) => entry.surface === "slack")!.link).toBe(
      "https://app.slack.com/client/T0TEAM/C0GENERAL/thread/C0GENERAL-1700400000.000100",
    );
    // The next start reads only what was appended since.
    await upgradeAuditEntries(
      audit,
      {
        discord: () => {
          throw new Error("read again");
        },
      },
      silentLogger,
    );
  });
});
