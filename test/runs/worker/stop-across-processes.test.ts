// A Stop click that lands on another bot process: two real bot processes (Slack in HTTP mode)
// on one real Redis; the run hangs in a model call on one, the requester's click is delivered to
// the other, and the run still ends at once: its model call is cancelled and the person gets
// the summary with "Stopped by <name>.".
import { expect, it } from "vitest";
import { STOP_ACTION } from "../../../src/adapters/slack/slack-working.js";
import { freePort } from "../../support/free-port.js";
import { startBot } from "../../support/bot-child.js";
import { startFakeOpenAI, textReply } from "../../support/fake-openai-server.js";
import { BOT_USER_ID } from "../../support/fake-slack.js";
import { blockActionPayload, mentionEvent, postEvent, postInteraction } from "../../support/fake-slack-requests.js";
import { until } from "../../support/until.js";
import { useSlackRedisHarness } from "../../support/slack-redis-harness.js";
import { describeWithRedis } from "../../support/redis-suite.js";

const THREAD = "1700500000.000100";

const harness = useSlackRedisHarness();
const { bots, models } = harness;

describeWithRedis("Stop across two bot processes on one Redis", () => {
  it("stops a run hanging on one process when the click lands on the other", async () => {
    models.push(...(await Promise.all([0, 1].map(() => startFakeOpenAI()))));
    // The run's model call hangs; the summary call after the Stop answers.
    for (const model of models) model.enqueue({ hang: true }, textReply("Summary: I had not found anything yet."));
    const started = await Promise.allSettled(
      models.map(async (model) =>
        startBot({ slackApiUrl: harness.slack.apiUrl, openaiBaseUrl: model.baseUrl, storeUrl: harness.redis.url, port: await freePort() }),
      ),
    );
    bots.push(...started.flatMap((result) => (result.status === "fulfilled" ? [result.value] : [])));
    const failed = started.find((result) => result.status === "rejected");
    if (failed) throw failed.reason;

    await postEvent(bots[0]!.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> think forever`, ts: THREAD }));
    const button = await harness.slack.waitForCall(
      "chat.postMessage",
      (call) => JSON.stringify(call.args.blocks ?? []).includes(STOP_ACTION),
      30_000,
    );
    await until(() => models.some((model) => model.requests.length === 1), "the run's model call", 30_000);
    const runsOn = models.findIndex((model) => model.requests.length === 1);
    const other = bots[1 - runsOn]!;

    const runId = (button.args.blocks as Array<{ accessory: { value: string } }>)[0]!.accessory.value;
    const message = harness.slack.threadMessages("C0GENERAL", THREAD).find((m) => JSON.stringify(m.blocks ?? []).includes(STOP_ACTION))!;
    const click = blockActionPayload({
      user: "U0ALICE",
      actionId: STOP_ACTION,
      value: runId,
      channel: "C0GENERAL",
      messageTs: message.ts,
      threadTs: THREAD,
    });
    expect((await postInteraction(other.eventsUrl, click)).status).toBe(200);

    const line = await harness.slack.waitForCall(
      "chat.postMessage",
      (call) => String(call.args.text).includes("Stopped by u0alice."),
      30_000,
    );
    expect(line.args.thread_ts).toBe(THREAD);
    await harness.slack.waitForCall(
      "chat.postMessage",
      (call) => String(call.args.text).startsWith("Summary: I had not found anything yet."),
      30_000,
    );
    // The hung call's connection closes when the run aborts it; the server may see that a moment after the line.
    await until(() => models[runsOn]!.cancelled() === 1, "the hung model call to be cancelled", 10_000);
    expect(models[1 - runsOn]!.requests).toHaveLength(0);
    expect(harness.slack.callsTo("chat.postEphemeral")).toHaveLength(0);
  }, 120_000);
});
