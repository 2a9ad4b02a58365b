// Limits hold across processes: two bot processes on one Redis share the daily token count.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRedisServer, type RedisServer } from "./support/redis-server.js";

const run = promisify(execFile);
const script = join(import.meta.dirname, "support", "governance-process.ts");
const settings = JSON.stringify({ limits: { user: { tokensPerDay: 1000 } } });

async function inChildProcess(url: string, ...args: string[]): Promise<unknown> {
  const { stdout } = await run(process.execPath, ["--import", "tsx", script, url, settings, ...args], { timeout: 20_000 });
  return JSON.parse(stdout);
}

describe("two processes on one Redis", () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(async () => redis.stop());

  it("the daily token limit trips on the usage both processes reported", { timeout: 90_000 }, async () => {
    const [first, second] = await Promise.all([inChildProcess(redis.url, "spend", "U1", "600"), inChildProcess(redis.url, "spend", "U1", "300")]);
    expect([first, second]).toEqual([{ stop: null }, { stop: null }]);
    expect(await inChildProcess(redis.url, "admit", "U1")).toEqual({ kind: "admitted" });
    expect(await inChildProcess(redis.url, "spend", "U1", "100")).toMatchObject({ stop: { guard: "token_limit" } });
    expect(await inChildProcess(redis.url, "admit", "U1")).toMatchObject({ kind: "refused", text: expect.stringMatching(/daily limit of 1,000 model tokens/) });
    expect(await inChildProcess(redis.url, "admit", "U2")).toEqual({ kind: "admitted" });
  });
});
