// BOT_ROLE with real processes on one Redis: an ingress process takes Slack's events (records,
// queues, acks) and never runs; a worker runs and posts through the Web API but takes no events
// (its PORT serves health and metrics only, no /slack/events).
import { expect, it } from "vitest";
import { freePort } from "../support/free-port.js";
import { startBot, type BotProcess } from "../support/bot-child.js";
import { startFakeOpenAI, textReply, type FakeOpenAI } from "../support/fake-openai-server.js";
import { BOT_USER_ID } from "../support/fake-slack.js";
import { mentionEvent, postEvent } from "../support/fake-slack-requests.js";
import { useSlackRedisHarness } from "../support/slack-redis-harness.js";
import { describeWithRedis } from "../support/redis-suite.js";

const harness = useSlackRedisHarness();
const { bots, models } = harness;

async function startRole(role: "ingress" | "worker"): Promise<{ bot: BotProcess; model: FakeOpenAI; port: number }> {
  const model = await startFakeOpenAI();
  models.push(model);
  model.enqueue(textReply(`answered by the ${role}`));
  const port = await freePort();
  const bot = await startBot({
    slackApiUrl: harness.slack.apiUrl,
    openaiBaseUrl: model.baseUrl,
    storeUrl: harness.redis.url,
    port,
    env: { BOT_ROLE: role },
  });
  bots.push(bot);
  return { bot, model, port };
}

describeWithRedis("BOT_ROLE", () => {
  it("a worker takes no Slack events; an ingress records and acks them, and the worker runs them", async () => {
    const worker = await startRole("worker");
    const ingress = await startRole("ingress");

    const refused = await postEvent(
      worker.bot.eventsUrl,
      mentionEvent({ text: `<@${BOT_USER_ID}> to the worker`, ts: "1700600000.000100" }),
    );
    expect(refused.status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${worker.port}/healthz`)).status).toBe(200);

    const acked = await postEvent(
      ingress.bot.eventsUrl,
      mentionEvent({ text: `<@${BOT_USER_ID}> to the ingress`, ts: "1700600001.000100" }),
    );
    expect(acked.status).toBe(200);
    const answer = await harness.slack.waitForCall(
      "chat.postMessage",
      (call) => String(call.args.text ?? "").startsWith("answered by"),
      30_000,
    );
    expect(answer.args).toMatchObject({ text: "answered by the worker", thread_ts: "1700600001.000100" });
    expect(ingress.model.requests).toHaveLength(0);
    expect(worker.model.requests).toHaveLength(1);
  });
});
