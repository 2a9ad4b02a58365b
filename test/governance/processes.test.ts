// Limits hold across processes: bot processes on one Redis share the daily token count, as
// reported by their (scripted) models.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startRedisServer, type RedisServer } from "../support/redis-server.js";
import { describeWithRedis } from "../support/redis-suite.js";
import { supportPath } from "../support/repo-paths.js";

const run = promisify(execFile);
const script = supportPath("governance-process.ts");
const settings = JSON.stringify({ limits: { user: { tokensPerDay: 1000 } } });

async function inChildProcess(url: string, ...args: string[]): Promise<unknown> {
  const { stdout } = await run(process.execPath, ["--import", "tsx", script, url, settings, ...args], { timeout: 30_000 });
  return JSON.parse(stdout);
}

describeWithRedis("two processes on one Redis", () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(async () => redis.stop());

  it("the daily token limit trips on the usage both processes' models reported", { timeout: 120_000 }, async () => {
    const [first, second] = await Promise.all([
      inChildProcess(redis.url, "run", "U1", "600"),
      inChildProcess(redis.url, "run", "U1", "300"),
    ]);
    expect([first, second]).toEqual([
      { answer: "ok", modelCalls: 1 },
      { answer: "ok", modelCalls: 1 },
    ]);
    expect(await inChildProcess(redis.url, "run", "U1", "150")).toEqual({ answer: "ok", modelCalls: 1 });
    expect(await inChildProcess(redis.url, "run", "U1", "10")).toEqual({
      answer: expect.stringMatching(/your daily limit of 1,000 model tokens is reached/),
      modelCalls: 0,
    });
    expect(await inChildProcess(redis.url, "admit", "U2")).toEqual({ kind: "admitted" });
  });
});
