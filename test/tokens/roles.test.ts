// An ingress process (BOT_ROLE=ingress) records, queues and acks, and never counts a token: it
// builds no tokenizer table at all. The worker that runs the message builds its model's. Both
// run in this test's process, one after the other, so the tokenizer's diagnostic sees each.
import { afterEach, beforeEach, expect, it } from "vitest";
import { startApp, type RunningApp } from "../../src/app.js";
import { Tokenizer } from "../../src/tokens/tokenizer.js";
import { freePort } from "../support/free-port.js";
import { BOT_USER_ID, startFakeSlack, type FakeSlack } from "../support/fake-slack.js";
import { mentionEvent, postEvent, SIGNING_SECRET } from "../support/fake-slack-requests.js";
import { describeWithRedis } from "../support/redis-suite.js";
import { startRedisServer, type RedisServer } from "../support/redis-server.js";

let slack: FakeSlack;
let redis: RedisServer;
const apps: RunningApp[] = [];

beforeEach(async () => {
  slack = await startFakeSlack();
  redis = await startRedisServer();
});

afterEach(async () => {
  for (const app of apps.splice(0)) await app.stop();
  await slack.close();
  await redis.stop();
});

async function startRole(role: "ingress" | "worker", port: number): Promise<void> {
  const result = await startApp({
    BOT_ROLE: role,
    STORE_URL: redis.url,
    LOG_LEVEL: "silent",
    OPENAI_API_KEY: "demo",
    MEMORY_EXTRACT_FACTS: "false",
    SLACK_BOT_TOKEN: "xoxb-test",
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: slack.apiUrl,
    PORT: String(port),
  });
  if (result.kind !== "started") throw new Error(result.message);
  apps.push(result.app);
}

describeWithRedis("tokenizer tables by role", () => {
  it("an ingress acks and queues a message without building a table; the worker that answers it builds its model's", async () => {
    const port = await freePort();
    await startRole("ingress", port);
    const acked = await postEvent(
      `http://127.0.0.1:${port}/slack/events`,
      mentionEvent({ text: `<@${BOT_USER_ID}> what is 6*7`, ts: "1700700000.000100" }),
    );
    expect(acked.status).toBe(200);
    expect(Tokenizer.encodingsWithTables()).toEqual([]);

    await startRole("worker", await freePort());
    await slack.waitForCall("chat.postMessage", (call) => call.args.thread_ts === "1700700000.000100", 30_000);
    expect(Tokenizer.encodingsWithTables()).toEqual(["o200k_base"]);
  });
});
