// start() and stop(): stop takes no more events and closes the port or the socket; runs in
// flight belong to the runner, whose close is bounded.
import { afterEach, describe, expect, it } from "vitest";
import { ScriptedModel, say } from "../../support/model-scripted.js";
import { loadConfig } from "../../../src/config.js";
import { TokenCounter } from "../../../src/tokens/token-counter.js";
import { silentLogger } from "../../../src/logger.js";
import { createSlackSurface } from "../../../src/adapters/slack/slack-adapter.js";
import { underCore } from "../../support/surface-harness.js";
import { BOT_USER_ID, startFakeSlack } from "../../support/fake-slack.js";
import { mentionEvent, postEvent, SIGNING_SECRET } from "../../support/fake-slack-requests.js";
import { gatedModel, startSlackHarness, type SlackHarness } from "../../support/slack-harness.js";
import type { AgentService } from "../../../src/runs/api/agent-service.js";
import type { KeyValueStore } from "../../../src/memory/types.js";

let harness: SlackHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe("Slack adapter lifecycle", () => {
  it("stop takes no more events first (503, which Slack retries); the runner then lets a run in flight reach its answer", async () => {
    const model = gatedModel(new ScriptedModel([say("finished before exit")]));
    harness = await startSlackHarness({ model });
    await postEvent(harness.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> slow one`, ts: "1700005000.000100" }));
    await model.waiting;

    await harness.adapter.stop();
    const late = await postEvent(harness.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> one more`, ts: "1700005000.000200" }));
    expect(late.status).toBe(503);
    const closing = harness.service.close(5_000);
    model.open();
    await closing;
    expect(harness.fake.callsTo("chat.postMessage").map((c) => c.args.text)).toContain("finished before exit");
  });

  it("the runner stops within its bound when a run does not finish, leaving it for the next start", async () => {
    const model = new ScriptedModel([{ never: true }], { whenExhausted: say("summary") });
    harness = await startSlackHarness({ model, env: { AGENT_RUN_TIMEOUT_MS: "60000" } });
    await postEvent(harness.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> hang`, ts: "1700005100.000100" }));
    await harness.fake.waitForCall("assistant.threads.setStatus");
    await harness.adapter.stop();
    const started = performance.now();
    await harness.service.close(100);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(harness.fake.callsTo("chat.postMessage").map((c) => c.args.text)).not.toContain("summary");
  });

  it("disconnects the socket on stop and takes no envelope after it", async () => {
    harness = await startSlackHarness({ model: new ScriptedModel([say("hello")]), mode: "socket" });
    const { fake } = harness;
    const before = fake.sendEnvelope("events_api", mentionEvent({ text: `<@${BOT_USER_ID}> hi`, ts: "1700005200.000100" }));
    await fake.waitForAck(before);

    await harness.adapter.stop();
    await fake.waitForSocketClosed();
    // The fake holds this for the next connection, so a client that came back would ack it.
    const after = fake.sendEnvelope("events_api", mentionEvent({ text: `<@${BOT_USER_ID}> still there?`, ts: "1700005201.000100" }));
    await expect(fake.waitForAck(after, 500)).rejects.toThrow(/timed out/);
    expect(fake.acks.map((ack) => ack.envelopeId)).toEqual([before]);
    expect(fake.callsTo("apps.connections.open")).toHaveLength(1);
  });

  it("refuses to start with a bot token Slack rejects, naming the variable", async () => {
    const fake = await startFakeSlack();
    fake.fail("auth.test", { error: "invalid_auth" });
    await expect(startWithoutPort(fake.apiUrl)).rejects.toThrow(/SLACK_BOT_TOKEN: is not accepted by Slack \(invalid_auth\)/);
    await fake.close();
  });

  it("refuses to start HTTP mode without the process's port to take events on", async () => {
    const fake = await startFakeSlack();
    await expect(startWithoutPort(fake.apiUrl)).rejects.toThrow(
      "Slack's HTTP mode takes its requests on the process's port, and none was given",
    );
    await fake.close();
  });
});

/** A Slack surface in HTTP mode started under a core with no port to mount on; stopped again whatever the start did. */
async function startWithoutPort(apiUrl: string): Promise<void> {
  const config = loadConfig({ SLACK_BOT_TOKEN: "xoxb-test", SLACK_SIGNING_SECRET: SIGNING_SECRET, SLACK_API_URL: apiUrl, PORT: "0" });
  const service = { attach: () => {} } as unknown as AgentService;
  const surface = createSlackSurface({ config: config.slack!, logger: silentLogger, counter: TokenCounter.forModel(config.model.name) });
  const adapter = underCore(surface, { service, store: {} as KeyValueStore, logger: silentLogger });
  try {
    await adapter.start();
  } finally {
    await adapter.stop();
  }
}
