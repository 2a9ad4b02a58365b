// Record before ack: Slack hears "ok" for a message only once its intake record is written and
// its run queued, in HTTP mode (processBeforeResponse) and in Socket Mode (deferred envelope
// ack). A process killed between the ack and the record would lose the message for good, as
// Slack never delivers an acknowledged event again. A worker process (takeEvents false) opens
// no transport at all and mounts nothing on the process's port.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createSlackSurface, type SlackSurface } from "../../../src/adapters/slack/slack-adapter.js";
import { underCore, type TestAdapter } from "../../support/surface-harness.js";
import { createAgentService, type RunningAgentService } from "../../../src/runs/service/create-agent-service.js";
import { ScriptedModel } from "../../support/model-scripted.js";
import { TokenCounter } from "../../../src/tokens/token-counter.js";
import { silentLogger } from "../../../src/logger.js";
import { openStore } from "../../../src/memory/keyv-store.js";
import type { KeyValueStore, SetListing, StoreEntry } from "../../../src/memory/types.js";
import { intakeIdFor } from "../../../src/runs/intake/intake-store.js";
import { BOT_USER_ID, startFakeSlack, type FakeSlack } from "../../support/fake-slack.js";
import type { OpsServer } from "../../../src/ops/ops-server.js";
import { eventsUrlOf, startSlackEventsPort } from "../../support/slack-events-port.js";
import { mentionEvent, postEvent } from "../../support/fake-slack-requests.js";
import { slackConfig } from "../../support/slack-harness.js";

/** The store with intake record writes held until open(): `held` resolves when the first one waits. */
function holdIntakeWrites(store: KeyValueStore): KeyValueStore & { open(): void; readonly held: Promise<void> } {
  let open!: () => void;
  let reached!: () => void;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const held = new Promise<void>((resolve) => {
    reached = resolve;
  });
  return Object.assign(Object.create(store) as KeyValueStore, {
    async setIfAbsentListed(entry: StoreEntry, listing: SetListing) {
      if (entry.key.startsWith("intake:")) {
        reached();
        await gate;
      }
      return store.setIfAbsentListed(entry, listing);
    },
    open,
    held,
  });
}

interface Bot {
  readonly fake: FakeSlack;
  readonly store: ReturnType<typeof holdIntakeWrites>;
  readonly adapter: TestAdapter;
  readonly service: RunningAgentService;
  /** The process's port: HTTP mode's events arrive on it. */
  readonly port: OpsServer;
}

const running: Bot[] = [];
afterEach(async () => {
  for (const bot of running.splice(0)) {
    bot.store.open();
    await bot.service.close();
    await bot.adapter.stop();
    await bot.port.close();
    await bot.store.close();
    await bot.fake.close();
  }
});

async function startBot(mode: "http" | "socket", takeEvents = true): Promise<Bot> {
  const fake = await startFakeSlack();
  const folder = mkdtempSync(join(tmpdir(), "ingress-ack-"));
  const config = slackConfig(fake, mode, folder);
  const store = holdIntakeWrites(await openStore(config.storeUrl, silentLogger));
  const model = new ScriptedModel([], { whenExhausted: { text: "Recorded, then answered." } });
  const service = createAgentService({ config, model, store, logger: silentLogger });
  const port = await startSlackEventsPort();
  const surface: SlackSurface = createSlackSurface({
    config: config.slack!,
    logger: silentLogger,
    counter: TokenCounter.forModel(config.model.name),
    takeEvents,
    httpMount: port,
  });
  const adapter = underCore(surface, { service, store, logger: silentLogger });
  await adapter.start();
  await service.start();
  port.open();
  if (mode === "socket" && takeEvents) await fake.waitForSocket();
  const bot = { fake, store, adapter, service, port };
  running.push(bot);
  return bot;
}

const QUESTION_TS = "1700500000.000100";
const recordKey = `intake:${intakeIdFor("slack", `C0GENERAL:${QUESTION_TS}`)}`;

describe("Slack acks a message only once it is recorded", () => {
  it("HTTP mode: the 200 waits for the intake record", async () => {
    const bot = await startBot("http");
    let acked = false;
    const ack = postEvent(eventsUrlOf(bot.port), mentionEvent({ text: `<@${BOT_USER_ID}> hello?`, ts: QUESTION_TS })).then((response) => {
      acked = true;
      return response;
    });
    await bot.store.held;
    // A request answered after the held write (404: the test's port has no other routes): the event's response, had it been sent, came before it.
    expect((await fetch(`http://127.0.0.1:${bot.port.port}/`)).status).toBe(404);
    expect(acked).toBe(false);

    bot.store.open();
    expect((await ack).status).toBe(200);
    expect(await bot.store.get(recordKey)).toMatchObject({ state: expect.stringMatching(/received|running|done/) });
    await bot.fake.waitForCall("chat.postMessage", (call) => call.args.text === "Recorded, then answered.");
  });

  it("Socket Mode: the envelope's ack waits for the intake record", async () => {
    const bot = await startBot("socket");
    const envelope = bot.fake.sendEnvelope("events_api", mentionEvent({ text: `<@${BOT_USER_ID}> hello?`, ts: QUESTION_TS }));
    await bot.store.held;
    // A Web API round trip after the held write: an ack sent at once would have arrived before it.
    await fetch(`${bot.fake.apiUrl}auth.test`, { method: "POST", headers: { Authorization: "Bearer xoxb-test-token" } });
    expect(bot.fake.acks.filter((ack) => ack.envelopeId === envelope)).toHaveLength(0);

    bot.store.open();
    await bot.fake.waitForAck(envelope);
    expect(await bot.store.get(recordKey)).toMatchObject({ state: expect.stringMatching(/received|running|done/) });
    await bot.fake.waitForCall("chat.postMessage", (call) => call.args.text === "Recorded, then answered.");
  });
});

describe("a Slack worker (BOT_ROLE=worker) takes no events", () => {
  it("opens no Socket Mode connection, yet knows who it is for the Web API", async () => {
    const bot = await startBot("socket", false);
    expect(bot.fake.callsTo("auth.test")).toHaveLength(1);
    expect(bot.fake.callsTo("apps.connections.open")).toHaveLength(0);
  });

  it("mounts nothing on the port in HTTP mode: an event there is refused with 503, which Slack retries to an ingress", async () => {
    const bot = await startBot("http", false);
    const response = await postEvent(eventsUrlOf(bot.port), mentionEvent({ text: `<@${BOT_USER_ID}> hello?`, ts: QUESTION_TS }));
    expect(response.status).toBe(503);
    expect(await bot.store.get(recordKey)).toBeUndefined();
  });
});
