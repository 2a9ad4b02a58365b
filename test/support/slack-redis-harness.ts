// What the multi-process Slack tests share: a fake Slack and a real Redis for each test, and
// afterwards every bot process killed and waited for, so no test leaves one running.
import type { BotProcess } from "./bot-child.js";
import type { FakeOpenAI } from "./fake-openai-server.js";
import { startFakeSlack, type FakeSlack } from "./fake-slack.js";
import { startRedisServer, type RedisServer } from "./redis-server.js";

export interface SlackRedisBots {
  readonly slack: FakeSlack;
  readonly redis: RedisServer;
  readonly bots: BotProcess[];
  readonly models: FakeOpenAI[];
}

export async function startSlackRedisBots(): Promise<SlackRedisBots> {
  return { slack: await startFakeSlack(), redis: await startRedisServer(), bots: [], models: [] };
}

/** Kills the bots that still run, then closes the models, the fake Slack and Redis. */
export async function stopSlackRedisBots({ slack, redis, bots, models }: SlackRedisBots): Promise<void> {
  for (const bot of bots) if (bot.child.exitCode === null && bot.child.signalCode === null) bot.child.kill("SIGKILL");
  await Promise.all(bots.map((bot) => bot.exited));
  await Promise.all(models.map((model) => model.close()));
  await slack.close();
  await redis.stop();
}
