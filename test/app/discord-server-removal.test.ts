// A Discord server that removes the bot, with the product as startApp wires it against the fake
// Discord (which tells it as Discord does: GUILD_DELETE without `unavailable`): the server's data
// is deleted like an uninstalled Slack workspace's, at once or after UNINSTALL_RETENTION_DAYS;
// an outage (GUILD_DELETE with `unavailable: true`) deletes nothing, and a DM with the same person
// (no server's) stays.
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startApp, type RunningApp } from "../../src/app.js";
import { silentLogger } from "../../src/logger.js";
import { openStore } from "../../src/memory/keyv-store.js";
import type { KeyValueStore } from "../../src/memory/types.js";
import { createAuditLog } from "../../src/governance/audit-log.js";
import { FakeDiscord } from "../support/fake-discord.js";
import { nextSnowflake, type FakeUser } from "../support/fake-discord-payloads.js";
import { startFakeOpenAI, textReply, type FakeOpenAI, type RecordedRequest } from "../support/fake-openai-server.js";
import { storeRowsNaming } from "../support/installed-product-harness.js";
import { originalPath } from "../support/discord-harness.js";
import { temporaryFolder, type TemporaryFolder } from "../support/temporary-folder.js";
import { until } from "../support/until.js";
import { bookedErasures, erasedAtOnce } from "../support/booked-erasures.js";

interface Product {
  readonly app: RunningApp;
  readonly discord: FakeDiscord;
  readonly model: FakeOpenAI;
  readonly folder: TemporaryFolder;
  readonly path: string;
  readonly side: KeyValueStore;
}

let product: Product | undefined;
afterEach(async () => {
  if (!product) return;
  await product.side.close();
  await product.app.stop();
  await product.model.close();
  await product.discord.close();
  await product.folder.remove();
  product = undefined;
});

function respond(request: RecordedRequest) {
  if (request.body.response_format?.type === "json_object") return textReply(JSON.stringify({ facts: ["The person is called Dana."] }));
  return textReply("Hello Dana.");
}

async function start(env: Record<string, string> = {}): Promise<Product> {
  const discord = await FakeDiscord.start();
  const model = await startFakeOpenAI();
  model.enqueue(...Array.from({ length: 100 }, () => respond));
  const folder = await temporaryFolder();
  const path = join(folder.path, "bot.sqlite");
  const result = await startApp({
    STORE_URL: `sqlite://${path}`,
    LOG_LEVEL: "silent",
    PORT: "0",
    DISCORD_TOKEN: discord.token,
    DISCORD_APPLICATION_ID: discord.applicationId,
    DISCORD_API_URL: discord.apiUrl,
    OPENAI_API_KEY: "sk-test",
    OPENAI_BASE_URL: model.baseUrl,
    OPENAI_MAX_RETRIES: "0",
    MEMORY_EXTRACT_FACTS: "true",
    ...env,
  });
  if (result.kind !== "started") throw new Error(result.message);
  return { app: result.app, discord, model, folder, path, side: await openStore(`sqlite://${path}`, silentLogger) };
}

/** Dana asks in the server's general channel and in her DM with the bot; resolves with the DM's id once both are answered and remembered. */
async function askInServerAndDm(running: Product, dana: FakeUser): Promise<string> {
  const { discord } = running;
  const dm = discord.dmChannel(dana);
  for (const channel of [discord.general, dm]) {
    const { token } = discord.slashCommand("ask", dana, { channel, values: { question: "I am Dana" } });
    await discord.waitForCall("PATCH", originalPath(discord, token), (request) => request.body.content === "Hello Dana.");
  }
  await until(async () => (await storeRowsNaming(running.path, "The person is called Dana.")).length === 2, "both facts");
  return dm.id;
}

const removals = async (side: KeyValueStore) => (await createAuditLog(side).list({})).filter((entry) => entry.kind === "workspace_removed");

describe("a Discord server that removes the bot", () => {
  it("has its data deleted at once; an outage deletes nothing, and the DM stays", async () => {
    product = await start();
    const running = product;
    const { discord, side } = running;
    const dana: FakeUser = { id: nextSnowflake(), username: "dana" };
    const dmChannel = await askInServerAndDm(running, dana);
    const guild = discord.guild.id;

    // An outage first: the bot is still in the server, which keeps all of its own and is answered after it.
    discord.guildOutage();
    const { token } = discord.slashCommand("ask", dana, { values: { question: "still there?" } });
    await discord.waitForCall("PATCH", originalPath(discord, token), (request) => request.body.content === "Hello Dana.");
    expect(await removals(side)).toEqual([]);
    expect((await storeRowsNaming(running.path, discord.general.id)).length).toBeGreaterThan(0);

    const removedAt = Date.now();
    discord.removeBotFromGuild();
    await until(async () => (await removals(side)).length === 1, "the removal audited");
    await until(() => erasedAtOnce(side, removedAt), "the erasure carried out");

    expect(await removals(side)).toEqual([
      expect.objectContaining({ runId: guild, surface: "discord", reason: "guildDelete; 0 schedules ended" }),
    ]);
    const left = await storeRowsNaming(running.path, guild);
    // Left: the line of the removal, and the second erasure booked (after any run then in progress).
    expect(left.filter((row) => !row.includes("workspace_removed") && !row.includes("workspace:erasures"))).toEqual([]);
    expect(await storeRowsNaming(running.path, discord.general.id)).toEqual([]);
    // The DM is no server's: its history and fact stay.
    expect((await storeRowsNaming(running.path, dmChannel)).length).toBeGreaterThan(0);
    expect(await storeRowsNaming(running.path, "The person is called Dana.")).toHaveLength(1);
  });

  it("with UNINSTALL_RETENTION_DAYS, keeps the data until the booked day, or until the bot is added again: it starts clean", async () => {
    product = await start({ UNINSTALL_RETENTION_DAYS: "3" });
    const running = product;
    const { discord, side } = running;
    await askInServerAndDm(running, { id: nextSnowflake(), username: "dana" });
    const removedAt = Date.now();
    discord.removeBotFromGuild();
    await until(async () => (await side.setMembers("workspace:erasures")).length === 1, "the erasure booked");

    // The data outlives any run in progress at the removal: one erasure is booked, on the day.
    const [booked] = await bookedErasures(side);
    expect(booked!.workspace).toBe(discord.guild.id);
    expect(booked!.dueAt).toBeGreaterThanOrEqual(removedAt + 3 * 24 * 60 * 60_000);
    expect(await removals(side)).toEqual([
      expect.objectContaining({ reason: "guildDelete; 0 schedules ended; data deleted after 3 days" }),
    ]);
    expect(await storeRowsNaming(running.path, "The person is called Dana.")).toHaveLength(2);

    discord.addBotToGuild();
    await until(async () => (await side.setMembers("workspace:erasures")).length === 0, "the erasure carried out on the way back");
    expect(await storeRowsNaming(running.path, discord.general.id)).toEqual([]);
    expect(await storeRowsNaming(running.path, "The person is called Dana.")).toHaveLength(1);
  });
});
