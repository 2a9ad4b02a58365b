// What governance adds before each message and after each step: `admit` (access, the per-minute
// counters, the redelivery memo) and `recordUsage` (the daily token counters), on SQLite and on
// Redis when installed. Sequential latency, then 200 admits at once.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import type { TaskOrigin } from "../src/contracts/types.js";
import { createAuditLog } from "../src/governance/audit-log.js";
import { createRunPolicy } from "../src/governance/run-policy.js";
import { checkSettings } from "../src/governance/settings-schema.js";
import { fixedSettings } from "../src/governance/settings-source.js";
import { silentLogger } from "../src/logger.js";
import { openStore } from "../src/memory/keyv-store.js";
import { redisServerInstalled, startRedisServer } from "../test/support/redis-server.js";
import { percentile } from "./support/stats.js";

const SEQUENTIAL = 500;
const BURST = 200;
const SETTINGS = checkSettings({
  access: { block: { users: ["UBLOCKED"] } },
  limits: { user: { runsPerMinute: 1_000_000, tokensPerDay: 1_000_000_000 }, channel: { runsPerMinute: 1_000_000 } },
});

const origin = (user: string): TaskOrigin => ({
  surface: "slack",
  conversationKey: `slack:T1:C1:${user}`,
  requester: { id: user },
  place: { team: "T1", channel: "C1" },
});
const ms = (value: number) => `${value.toFixed(3)} ms`;

async function measure(name: string, url: string): Promise<void> {
  if (SETTINGS.kind !== "ok") throw new Error(SETTINGS.problems.join("; "));
  const store = await openStore(url, silentLogger);
  const policy = createRunPolicy({ settings: fixedSettings(SETTINGS.settings), store, audit: createAuditLog(store), logger: silentLogger });
  const timed = async (work: () => Promise<unknown>) => {
    const started = performance.now();
    await work();
    return performance.now() - started;
  };
  const admit: number[] = [];
  const usage: number[] = [];
  for (let index = 0; index < SEQUENTIAL; index++) {
    admit.push(await timed(() => policy.admit(origin(`U${index % 20}`))));
    usage.push(await timed(() => policy.recordUsage(origin(`U${index % 20}`), 1234)));
  }
  const started = performance.now();
  await Promise.all(Array.from({ length: BURST }, (_, index) => policy.admit(origin(`B${index % 50}`))));
  const burstMs = performance.now() - started;
  console.log(
    `${name.padEnd(7)} admit p50 ${ms(percentile(admit, 50))} p99 ${ms(percentile(admit, 99))} · recordUsage p50 ${ms(percentile(usage, 50))} p99 ${ms(percentile(usage, 99))} · ${BURST} admits at once ${ms(burstMs)}`,
  );
  await store.close();
}

export async function run(): Promise<void> {
  const folder = await mkdtemp(join(tmpdir(), "bench-governance-"));
  try {
    await measure("SQLite", `sqlite://${join(folder, "bench.sqlite")}`);
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
  if (!redisServerInstalled()) return console.log("Redis   skipped: redis-server is not installed");
  const redis = await startRedisServer();
  try {
    await measure("Redis", redis.url);
  } finally {
    await redis.stop();
  }
}
