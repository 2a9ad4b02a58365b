import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GatewayIntentBits, MessageFlags } from "discord.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { approvalCustomId } from "../../../src/adapters/discord/buttons.js";
import { createDiscordSurface, type DiscordSurfaceDeps } from "../../../src/adapters/discord/discord-adapter.js";
import { RESTARTING_CLICK, RESTARTING_COMMAND, STORAGE_TROUBLE } from "../../../src/adapters/core/texts.js";
import { intakeIdFor } from "../../../src/runs/intake/intake-store.js";
import { say } from "../../support/model-scripted.js";
import type { AgentService } from "../../../src/runs/api/agent-service.js";
import { ConfigError } from "../../../src/errors.js";
import { silentLogger } from "../../../src/logger.js";
import { openStore } from "../../../src/memory/keyv-store.js";
import type { KeyValueStore } from "../../../src/memory/types.js";
import { FakeDiscord } from "../../support/fake-discord.js";
import { originalPath, startDiscordHarness } from "../../support/discord-harness.js";
import { stubService } from "../../support/fake-discord-service.js";
import { underCore } from "../../support/surface-harness.js";
import { until } from "../../support/until.js";
import { capturingLogger } from "../../support/capturing-logger.js";

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

function adapterWith(service: AgentService, extra: Partial<DiscordSurfaceDeps> = {}) {
  const surface = createDiscordSurface({
    config: { token: fake.token, applicationId: fake.applicationId, apiUrl: fake.apiUrl, approvers: [] },
    logger: silentLogger,
    ...extra,
  });
  return underCore(surface, { service, store, logger: extra.logger ?? silentLogger });
}

const BASE_INTENTS = GatewayIntentBits.Guilds | GatewayIntentBits.GuildMessages | GatewayIntentBits.DirectMessages;

describe("Discord adapter lifecycle", () => {
  it("attaches its chat tools, presenter and expiry handler before it starts", () => {
    const service = stubService();
    adapterWith(service);
    const hooks = service.attached.get("discord");
    expect(hooks?.tools.map((tool) => [tool.name, tool.effect])).toEqual([
      ["read_channel", "read"],
      ["post_message", "write"],
    ]);
    expect(hooks?.present).toBeTypeOf("function");
    expect(hooks?.expired).toBeTypeOf("function");
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
    const adapter = underCore(
      createDiscordSurface({
        config: { token: beating.token, applicationId: beating.applicationId, apiUrl: beating.apiUrl, approvers: [] },
        logger: silentLogger,
      }),
      { service: stubService(), store, logger: silentLogger },
    );
    await adapter.start();
    await until(() => beating.gateway.heartbeats >= 3, "three heartbeats");
    expect(beating.gateway.identifies).toHaveLength(1);
    expect(beating.gateway.connected).toBe(1);
    await adapter.stop();
    await beating.close();
  });

  it("names DISCORD_TOKEN when Discord rejects the token, without printing it", async () => {
    const adapter = underCore(
      createDiscordSurface({
        config: { token: "wrong-token-value", applicationId: fake.applicationId, apiUrl: fake.apiUrl, approvers: [] },
        logger: silentLogger,
      }),
      { service: stubService(), store, logger: silentLogger },
    );
    const failure = await adapter.start().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(ConfigError);
    expect((failure as ConfigError).variable).toBe("DISCORD_TOKEN");
    expect((failure as Error).message).not.toContain("wrong-token-value");
    await adapter.stop();
  });

  it("stopping keeps the client until the runs posted: a run that finishes meanwhile answers, then the client closes", async () => {
    const harness = await startDiscordHarness({ script: [{ text: "Finished while stopping.", delayMs: 200 }] });
    const { token } = harness.fake.slashCommand("ask", harness.alice, { values: { question: "slow one" } });
    await harness.fake.waitForCall("POST", /\/callback$/);
    await until(() => harness.model.requests.length === 1, "the model to be asked");

    await harness.adapter.stop();
    await harness.service.close(5_000);
    expect(harness.fake.callsTo("PATCH", originalPath(harness.fake, token)).at(-1)!.body.content).toBe("Finished while stopping.");
    await harness.close();
    await until(() => harness.fake.gateway.connected === 0, "the gateway connection to close");
  });

  it("stopping is bounded when a run never ends", async () => {
    const harness = await startDiscordHarness({ script: [{ never: true }], stopGraceMs: 100 });
    harness.fake.slashCommand("ask", harness.alice, { values: { question: "never" } });
    await until(() => harness.model.requests.length === 1, "the model to be asked");
    await harness.adapter.stop();
    await harness.close();
    await until(() => harness.fake.gateway.connected === 0, "the gateway connection to close");
  });

  it("tells the asker privately when it could not record the question, and keeps the detail in the log", async () => {
    const { logger, lines: logs } = capturingLogger("info");
    const adapter = adapterWith(stubService({ submit: () => Promise.reject(new Error("sqlite: database is locked at /srv/bot/data")) }), {
      logger,
    });
    await adapter.start();
    const { token } = fake.slashCommand("ask", { id: "1300000000000000001", username: "alice" }, { values: { question: "hello?" } });
    const told = await fake.waitForCall("POST", new RegExp(`^/webhooks/${fake.applicationId}/${token}$`));
    expect(told.body).toMatchObject({ content: STORAGE_TROUBLE, flags: MessageFlags.Ephemeral });
    expect(JSON.stringify(fake.calls.map((call) => call.body))).not.toContain("database is locked");
    expect(logs.find((line) => line.msg === "could not record the message")).toMatchObject({
      err: { message: "sqlite: database is locked at /srv/bot/data" },
    });
    await adapter.stop();
  });

  it("while it stops, tells people who click or use a command to come back, and still records a question", async () => {
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
    const command = discord.slashCommand("memory", bob);
    const late = discord.slashCommand("ask", bob, { values: { question: "are you there?" } });
    const clickNote = await discord.waitForCall("POST", new RegExp(`^/webhooks/${discord.applicationId}/${click.token}$`));
    const commandNote = await discord.waitForCall("PATCH", originalPath(discord, command.token));
    await discord.waitForCall("POST", new RegExp(`^/interactions/${late.id}/`));
    await stopping;
    open();
    await harness.service.close(5_000);

    expect(clickNote.body).toMatchObject({ content: RESTARTING_CLICK, flags: MessageFlags.Ephemeral });
    expect(commandNote.body.content).toBe(RESTARTING_COMMAND);
    expect(discord.callsTo("PATCH", originalPath(discord, asked.token)).at(-1)!.body.content).toBe("Finished while stopping.");
    // The next start answers it.
    expect(await harness.store.get(`intake:${intakeIdFor("discord", late.id)}`)).toMatchObject({ task: { text: "are you there?" } });
    await harness.close();
  });

  it("logs the whole answer when Discord will not take it, and leaves the message for the next start to answer", async () => {
    const harness = await startDiscordHarness({ script: [say("An answer nobody must lose.")] });
    const { fake: discord, alice } = harness;
    discord.failNext({
      method: "PATCH",
      path: /\/messages\/@original$/,
      status: 403,
      body: { message: "Missing Access", code: 50001 },
      when: (body) => body?.content === "An answer nobody must lose.",
    });
    const { id, token } = discord.slashCommand("ask", alice, { values: { question: "anything" } });

    await until(() => harness.logs.some((line) => line.answer === "An answer nobody must lose."), "the answer in the log");
    expect(harness.logs.find((line) => line.answer === "An answer nobody must lose.")).toMatchObject({
      level: 50,
      msg: "could not post the answer; it is in this log line",
    });
    // Never done without a post: the next start answers it.
    expect(await harness.store.get(`intake:${intakeIdFor("discord", id)}`)).toMatchObject({ state: "running" });
    await harness.restart([say("An answer nobody must lose.")]);
    await discord.waitForCall(
      "PATCH",
      originalPath(discord, token),
      (call) => call.status === 200 && call.body.content === "An answer nobody must lose.",
    );
    await until(
      async () => ((await harness.store.get(`intake:${intakeIdFor("discord", id)}`)) as { state?: string } | undefined)?.state === "done",
      "the message to be done",
    );
    await harness.close();
  });
});
