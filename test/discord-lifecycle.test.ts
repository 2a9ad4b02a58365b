import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GatewayIntentBits, MessageFlags } from "discord.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { approvalCustomId } from "../src/surfaces/discord/approval-buttons.js";
import { createDiscordAdapter, type DiscordAdapterDeps } from "../src/surfaces/discord/discord-adapter.js";
import { say } from "../src/agent/model-scripted.js";
import type { AgentService } from "../src/runs/service.js";
import { ConfigError } from "../src/errors.js";
import { silentLogger } from "../src/logger.js";
import { openStore } from "../src/memory/keyv-store.js";
import type { KeyValueStore } from "../src/memory/types.js";
import { FakeDiscord } from "./support/fake-discord.js";
import { captureLogs, originalPath, startDiscordHarness, waitUntil } from "./support/fake-discord-harness.js";
import { stubService } from "./support/fake-discord-service.js";

let fake: FakeDiscord;
let store: KeyValueStore;
let folder: string;
beforeEach(async () => {
  fake = await FakeDiscord.start();
  folder = mkdtempSync(join(tmpdir(), "discord-lifecycle-"));
  store = await openStore(`sqlite://${join(folder, "bot.sqlite")}`, silentLogger);
});
afterEach(async () => {
  await store.close();
  await fake.close();
  rmSync(folder, { recursive: true, force: true });
});

function adapterWith(service: AgentService, extra: Partial<DiscordAdapterDeps> = {}) {
  return createDiscordAdapter({
    config: { token: fake.token, applicationId: fake.applicationId, apiUrl: fake.apiUrl, approvers: [] },
    service,
    store,
    logger: silentLogger,
    ...extra,
  });
}

const BASE_INTENTS = GatewayIntentBits.Guilds | GatewayIntentBits.GuildMessages | GatewayIntentBits.DirectMessages;

describe("Discord adapter lifecycle", () => {
  it("registers its chat tools and expiry handler before it starts", () => {
    const service = stubService();
    adapterWith(service);
    expect(service.registered.get("discord")?.map((tool) => [tool.name, tool.effect])).toEqual([
      ["read_channel", "read"],
      ["post_message", "write"],
    ]);
    expect(service.expiryHandlers).toEqual(["discord"]);
  });

  it("asks only for the intents it needs, and for message content only when told to", async () => {
    const plain = adapterWith(stubService());
    await plain.start();
    expect(fake.gateway.identifies.at(-1)).toEqual({ token: fake.token, intents: BASE_INTENTS });
    await plain.stop();

    const withContent = adapterWith(stubService(), { messageContent: true });
    await withContent.start();
    expect(fake.gateway.identifies.at(-1)!.intents).toBe(BASE_INTENTS | GatewayIntentBits.MessageContent);
    await withContent.stop();
  });

  it("keeps its gateway connection alive with heartbeats the fake acknowledges", async () => {
    const beating = await FakeDiscord.start({ heartbeatIntervalMs: 40 });
    const adapter = createDiscordAdapter({
      config: { token: beating.token, applicationId: beating.applicationId, apiUrl: beating.apiUrl, approvers: [] },
      service: stubService(),
      store,
      logger: silentLogger,
    });
    await adapter.start();
    await waitUntil(() => beating.gateway.heartbeats >= 3, "three heartbeats");
    expect(beating.gateway.identifies).toHaveLength(1);
    expect(beating.gateway.connected).toBe(1);
    await adapter.stop();
    await beating.close();
  });

  it("names DISCORD_TOKEN when Discord rejects the token, without printing it", async () => {
    const adapter = createDiscordAdapter({
      config: { token: "wrong-token-value", applicationId: fake.applicationId, apiUrl: fake.apiUrl, approvers: [] },
      service: stubService(),
      store,
      logger: silentLogger,
    });
    const failure = await adapter.start().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(ConfigError);
    expect((failure as ConfigError).variable).toBe("DISCORD_TOKEN");
    expect((failure as Error).message).not.toContain("wrong-token-value");
    await adapter.stop();
  });

  it("stop() disconnects; the runner's close lets a run in flight finish", async () => {
    const harness = await startDiscordHarness({ script: [{ text: "Finished while stopping.", delayMs: 200 }] });
    const { token } = harness.fake.slashCommand("ask", harness.alice, { values: { question: "slow one" } });
    await harness.fake.waitForCall("POST", /\/callback$/);
    await waitUntil(() => harness.model.requests.length === 1, "the model to be asked");

    await harness.adapter.stop();
    await harness.service.close(5_000);
    expect(harness.fake.callsTo("PATCH", originalPath(harness.fake, token)).at(-1)!.body.content).toBe("Finished while stopping.");
    await waitUntil(() => harness.fake.gateway.connected === 0, "the gateway connection to close");
    await harness.close();
  });

  it("stop() is bounded when a run never ends", async () => {
    const harness = await startDiscordHarness({ script: [{ never: true }], adapter: { stopGraceMs: 100 } });
    harness.fake.slashCommand("ask", harness.alice, { values: { question: "never" } });
    await waitUntil(() => harness.model.requests.length === 1, "the model to be asked");
    await harness.adapter.stop();
    await waitUntil(() => harness.fake.gateway.connected === 0, "the gateway connection to close");
    await harness.close();
  });

  it("shows a generic failure line in public and keeps the detail in the log", async () => {
    const logs: Array<Record<string, unknown>> = [];
    const adapter = adapterWith(stubService({ submit: () => Promise.reject(new Error("sqlite: database is locked at /srv/bot/data")) }), {
      logger: captureLogs(logs),
    });
    await adapter.start();
    const { token } = fake.slashCommand("ask", { id: "1300000000000000001", username: "alice" }, { values: { question: "hello?" } });
    const reply = await fake.waitForCall("PATCH", originalPath(fake, token));
    expect(reply.body.content).toBe("⚠️ Something went wrong on my side; the details are in the bot's log. Please try again.");
    expect(JSON.stringify(fake.calls.map((call) => call.body))).not.toContain("database is locked");
    expect(logs.find((line) => line.msg === "could not record the message")).toMatchObject({
      err: { message: "sqlite: database is locked at /srv/bot/data" },
    });
    await adapter.stop();
  });

  it("tells people who click or ask while it stops to come back in a moment", async () => {
    let open: () => void = () => {};
    const harness = await startDiscordHarness({
      script: [say("Finished while stopping.")],
      gate: new Promise<void>((resolve) => (open = resolve)),
    });
    const { fake: discord, alice, bob } = harness;
    const asked = discord.slashCommand("ask", alice, { values: { question: "slow one" } });
    await discord.waitForCall("POST", new RegExp(`^/interactions/${asked.id}/`));
    const stopping = harness.adapter.stop();

    const someMessage = discord.userMessage(bob, "just chatting");
    const click = discord.clickButton(someMessage.id, approvalCustomId({ decision: "approve", runId: "run1", callId: "call_1" }), bob);
    const command = discord.slashCommand("ask", bob, { values: { question: "are you there?" } });
    const clickReply = await discord.waitForCall("POST", new RegExp(`^/interactions/${click.id}/[^/]+/callback$`));
    const commandReply = await discord.waitForCall("POST", new RegExp(`^/interactions/${command.id}/[^/]+/callback$`));
    await stopping;
    open();
    await harness.service.close(5_000);

    expect(clickReply.body).toMatchObject({
      type: 4,
      data: { content: "I am restarting; click again in a moment.", flags: MessageFlags.Ephemeral },
    });
    expect(commandReply.body).toMatchObject({
      type: 4,
      data: { content: "I am restarting; ask again in a moment.", flags: MessageFlags.Ephemeral },
    });
    expect(discord.callsTo("PATCH", originalPath(discord, asked.token)).at(-1)!.body.content).toBe("Finished while stopping.");
    await harness.close();
  });

  it("logs the whole answer when Discord will not take it", async () => {
    const harness = await startDiscordHarness({ script: [say("An answer nobody must lose.")] });
    const { fake: discord, alice } = harness;
    discord.failNext({
      method: "PATCH",
      path: /\/messages\/@original$/,
      status: 403,
      body: { message: "Missing Access", code: 50001 },
      when: (body) => body?.content === "An answer nobody must lose.",
    });
    discord.slashCommand("ask", alice, { values: { question: "anything" } });

    await waitUntil(() => harness.logs.some((line) => line.answer === "An answer nobody must lose."), "the answer in the log");
    expect(harness.logs.find((line) => line.answer === "An answer nobody must lose.")).toMatchObject({
      level: 50,
      msg: "could not post the answer; it is in this log line",
    });
    await harness.close();
  });
});
