// The Discord chat tools act for the person who asked: through the real discord.js client
// (its cache of the server's roles and channel overwrites, and the member fetched from the
// fake), only channels of the asker's server that the asker may use themselves.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { OverwriteType, PermissionFlagsBits } from "discord.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDiscordSurface } from "../../../src/adapters/discord/discord-adapter.js";
import type { Tool, ToolContext } from "../../../src/contracts/types.js";
import { silentLogger } from "../../../src/logger.js";
import { openStore } from "../../../src/memory/keyv-store.js";
import type { KeyValueStore } from "../../../src/memory/types.js";
import { FakeDiscord, type FakeChannel, type FakeUser } from "../../support/fake-discord.js";
import { nextSnowflake } from "../../support/fake-discord-payloads.js";
import { stubService } from "../../support/fake-discord-service.js";
import { discordAsked } from "../../support/discord-origins.js";
import { underCore, type TestAdapter } from "../../support/surface-harness.js";

let fake: FakeDiscord;
let store: KeyValueStore;
let folder: string;
let adapter: TestAdapter;
let tools: Record<string, Tool>;
const staffRole = nextSnowflake();
const alice: FakeUser = { id: nextSnowflake(), username: "alice" };
const sam: FakeUser = { id: nextSnowflake(), username: "sam" };
let staffOnly: FakeChannel;
let readOnly: FakeChannel;
let notSam: FakeChannel;

beforeAll(async () => {
  fake = await FakeDiscord.start({ roles: [{ id: staffRole, name: "staff" }] });
  fake.setMember(alice);
  fake.setMember(sam, [staffRole]);
  // Made before the bot connects, so they arrive in the server's snapshot (GUILD_CREATE) like real channels.
  staffOnly = fake.guildChannel("staff", [
    fake.hiddenFromEveryone(),
    { id: staffRole, type: OverwriteType.Role, allow: PermissionFlagsBits.ViewChannel },
  ]);
  readOnly = fake.guildChannel("announcements", [{ id: fake.guild.id, type: OverwriteType.Role, deny: PermissionFlagsBits.SendMessages }]);
  notSam = fake.guildChannel("surprise-party", [{ id: sam.id, type: OverwriteType.Member, deny: PermissionFlagsBits.ViewChannel }]);
  folder = mkdtempSync(join(tmpdir(), "discord-tools-"));
  store = await openStore(`sqlite://${join(folder, "bot.sqlite")}`, silentLogger);
  const service = stubService();
  const surface = createDiscordSurface({
    config: { token: fake.token, applicationId: fake.applicationId, apiUrl: fake.apiUrl, approvers: [] },
    logger: silentLogger,
  });
  adapter = underCore(surface, { service, store, logger: silentLogger });
  await adapter.start();
  tools = Object.fromEntries((service.attached.get("discord")?.tools ?? []).map((tool) => [tool.name, tool]));
  fake.userMessage(alice, "staff meeting at 3");
});

afterAll(async () => {
  await adapter.stop();
  await store.close();
  await fake.close();
  rmSync(folder, { recursive: true, force: true });
});

function asked(by: FakeUser, channel: FakeChannel = fake.general): ToolContext {
  return {
    signal: new AbortController().signal,
    runId: "run1",
    origin: discordAsked({ id: by.id, name: by.username }, { guild: fake.guild.id, channel: channel.id }),
  };
}

const run = (name: string, args: unknown, context: ToolContext) => tools[name]!.execute(tools[name]!.schema.parse(args), context);
const readsOf = (channel: FakeChannel) => fake.callsTo("GET", new RegExp(`^/channels/${channel.id}/messages$`));
const postsTo = (channel: FakeChannel) => fake.callsTo("POST", new RegExp(`^/channels/${channel.id}/messages$`));

describe("Discord chat tools act only where the person asking may", () => {
  it("read_channel refuses a channel the person asking cannot see, and reads nothing", async () => {
    await expect(run("read_channel", { channel: staffOnly.id }, asked(alice))).rejects.toThrow(
      `read_channel only uses channels the person asking may use, and <@${alice.id}> can't see <#${staffOnly.id}>.`,
    );
    expect(readsOf(staffOnly)).toHaveLength(0);
  });

  it("read_channel reads a hidden channel for someone whose role lets them in", async () => {
    expect(String(await run("read_channel", { channel: staffOnly.id }, asked(sam)))).toBe(`No messages in ${staffOnly.id}.`);
    expect(readsOf(staffOnly)).toHaveLength(1);
  });

  it("follows an overwrite for one member", async () => {
    await expect(run("read_channel", { channel: notSam.id }, asked(sam))).rejects.toThrow(`<@${sam.id}> can't see <#${notSam.id}>`);
    expect(String(await run("read_channel", { channel: notSam.id }, asked(alice)))).toContain("No messages in");
  });

  it("post_message refuses a channel the person asking cannot see or cannot write in, and posts nothing", async () => {
    await expect(run("post_message", { channel: staffOnly.id, text: "hi" }, asked(alice))).rejects.toThrow(
      `<@${alice.id}> can't see <#${staffOnly.id}>`,
    );
    await expect(run("post_message", { channel: readOnly.id, text: "hi" }, asked(alice))).rejects.toThrow(
      `<@${alice.id}> can't send messages in <#${readOnly.id}>`,
    );
    expect([...postsTo(staffOnly), ...postsTo(readOnly)]).toHaveLength(0);
  });

  it("post_message posts where the person asking may write", async () => {
    expect(String(await run("post_message", { channel: staffOnly.id, text: "Meeting moved." }, asked(sam)))).toMatch(
      /^Posted 1 message in/,
    );
    expect(postsTo(staffOnly).at(-1)!.body.content).toBe("Meeting moved.");
  });

  it("reads a public channel for anyone in the server", async () => {
    expect(String(await run("read_channel", { channel: fake.general.id }, asked(alice)))).toContain("alice: staff meeting at 3");
  });

  it("refuses for someone who is not a member of the server", async () => {
    const stranger: FakeUser = { id: nextSnowflake(), username: "stranger" };
    await expect(run("read_channel", { channel: fake.general.id }, asked(stranger))).rejects.toThrow(
      `<@${stranger.id}> is not a member of this server`,
    );
  });

  it("refuses a channel of another server", async () => {
    const foreign = fake.foreignChannel();
    await expect(run("read_channel", { channel: foreign.id }, asked(alice))).rejects.toThrow(`Channel ${foreign.id} is not in this server`);
    expect(readsOf(foreign)).toHaveLength(0);
  });
});
