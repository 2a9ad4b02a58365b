// What the multi-process Slack tests share: a fake Slack and a real Redis for each test, and
// afterwards every bot process killed and waited for, so no test leaves one running, and every
// model server the test started closed.
import { afterEach, beforeEach } from "vitest";
import type { BotProcess } from "./bot-child.js";
import type { FakeOpenAI } from "./fake-openai-server.js";
import { startFakeSlack, type FakeSlack } from "./fake-slack.js";
import { startRedisServer, type RedisServer } from "./redis-server.js";

export interface SlackRedisHarness {
  readonly slack: FakeSlack;
  readonly redis: RedisServer;
  /** Bots the test started: killed after it. */
  readonly bots: BotProcess[];
  /** Model servers the test started: closed after it. */
  readonly models: FakeOpenAI[];
}

/** Registers the test hooks; the harness's parts are the current test's. */
export function useSlackRedisHarness(): SlackRedisHarness {
  let current: { readonly slack: FakeSlack; readonly redis: RedisServer } | undefined;
  const bots: BotProcess[] = [];
  const models: FakeOpenAI[] = [];
  const part = () => {
    if (!current) throw new Error("the Slack and Redis harness is there only inside a test");
    return current;
  };
  beforeEach(async () => {
    current = { slack: await startFakeSlack(), redis: await startRedisServer() };
  });
  afterEach(async () => {
    const started = bots.splice(0);
    for (const bot of started) if (bot.child.exitCode === null && bot.child.signalCode === null) bot.child.kill("SIGKILL");
    await Promise.all(started.map((bot) => bot.exited));
    await Promise.all(models.splice(0).map((model) => model.close()));
    await current?.slack.close();
    await current?.redis.stop();
    current = undefined;
  });
  return {
    get slack() {
      return part().slack;
    },
    get redis() {
      return part().redis;
    },
    bots,
    models,
  };
}
