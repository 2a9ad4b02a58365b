// Nothing runs before it can be shown, with real processes on one Redis: messages an ingress
// process acknowledged and queued while no worker ran are answered in their threads by a
// worker started afterwards (its queue starts only once Slack is attached), each exactly once.
import { expect } from "vitest";
import { freePort } from "../support/free-port.js";
import { startBot, type BotProcess } from "../support/bot-child.js";
import { startFakeOpenAI, textReply, type FakeOpenAI, type RecordedRequest } from "../support/fake-openai-server.js";
import { BOT_USER_ID } from "../support/fake-slack.js";
import { mentionEvent, postEvent } from "../support/fake-slack-requests.js";
import { until } from "../support/until.js";
import { describeWithRedis, itWithRedis } from "../support/redis-suite.js";
import { useSlackRedisHarness } from "../support/slack-redis-harness.js";

const harness = useSlackRedisHarness();
const { bots, models } = harness;

/** The worker's Slack adapter loads 3 s late (a cold start on a loaded machine): long enough for any queue started before it to take every item. */
const SLOW_SLACK = { nodeArgs: ["--import", "./test/support/slow-imports.mjs"], env: { SLOW_IMPORT: "adapters/slack/slack-adapter=3000" } };

async function startRole(role: "ingress" | "worker", model: FakeOpenAI): Promise<BotProcess> {
  const slow = role === "worker" ? SLOW_SLACK : { env: {} };
  const bot = await startBot({
    slackApiUrl: harness.slack.apiUrl,
    openaiBaseUrl: model.baseUrl,
    storeUrl: harness.redis.url,
    port: await freePort(),
    ...slow,
    env: { BOT_ROLE: role, ...slow.env },
  });
  bots.push(bot);
  return bot;
}

const questionOf = (request: RecordedRequest) =>
  (request.body.messages as Array<{ role: string; content: string }>).filter((message) => message.role === "user").pop()!.content;

describeWithRedis("a worker started while messages wait in the queue", () => {
  itWithRedis(
    "answers each of them in its thread, once, not in its log",
    async () => {
      const model = await startFakeOpenAI();
      models.push(model);
      model.enqueue(
        ...Array.from({ length: 10 }, () => (request: RecordedRequest) => textReply(`answer to ${questionOf(request).trim()}`)),
      );
      const ingress = await startRole("ingress", model);
      const threads = ["1700700001.000100", "1700700002.000100", "1700700003.000100"];
      for (const [index, ts] of threads.entries()) {
        const acked = await postEvent(ingress.eventsUrl, mentionEvent({ text: `<@${BOT_USER_ID}> question ${index + 1}`, ts }));
        expect(acked.status).toBe(200);
      }

      const worker = await startRole("worker", model);
      const answers = () =>
        threads.map(
          (ts, index) =>
            harness.slack
              .callsTo("chat.postMessage")
              .filter((call) => call.args.thread_ts === ts && call.args.text === `answer to question ${index + 1}`).length,
        );
      await until(() => answers().every((count) => count >= 1), "every queued message to be answered in its thread", 30_000, 100).catch(
        (error: Error) => {
          throw new Error(`${error.message}; answers ${JSON.stringify(answers())}\nworker:\n${worker.logs().slice(-3000)}`);
        },
      );
      expect(answers()).toEqual([1, 1, 1]);
      expect(worker.logs()).not.toContain("it is in this log line");
    },
    60_000,
  );
});
