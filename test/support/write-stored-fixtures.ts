// Writes the stored-data fixtures (test/fixtures/<name>/) by running today's code: a real
// AgentService with the settings file's run policy on a SQLite store, driven through four
// conversations (answered, paused for approval, interrupted after a delta checkpoint, interrupted
// during a write), then the BullMQ work queue on a private redis-server for the queue's payloads.
// stored-data-compat.test.ts reads what this leaves; it never runs this script.
//   npx tsx test/support/write-stored-fixtures.ts [folder]   (default test/fixtures/main-2026-12)
// Records are written without their TTLs (keyv would store expiries of the day this ran, and
// the committed store would age out); everything else is as today's code writes it.
import { execFileSync } from "node:child_process";
import { copyFile, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { Redis } from "ioredis";
import sqlite3 from "sqlite3";
import { stringify as yamlStringify } from "yaml";
import { call, say, ScriptedModel, type ScriptStep } from "./model-scripted.js";
import type { ModelRequest } from "../../src/contracts/types.js";
import { loadConfig } from "../../src/config.js";
import { createAuditLog } from "../../src/governance/audit-log.js";
import { createRunPolicy } from "../../src/governance/run-policy.js";
import { readSettingsFile } from "../../src/governance/settings-file.js";
import type { Settings, SettingsCheck } from "../../src/governance/settings-schema.js";
import { fixedSettings } from "../../src/governance/settings-source.js";
import { silentLogger } from "../../src/logger.js";
import { openStore } from "../../src/memory/keyv-store.js";
import { claimStoreOwnership } from "../../src/memory/store-lease.js";
import type { KeyValueStore } from "../../src/memory/types.js";
import { createAgentService } from "../../src/runs/service/create-agent-service.js";
import { createBullmqWorkQueue } from "../../src/runs/queue/bullmq-work-queue.js";
import { intakeIdFor } from "../../src/runs/intake/intake-store.js";
import { temporaryFolder } from "./temporary-folder.js";
import { until } from "./until.js";
import { startRedisServer } from "./redis-server.js";
import {
  conversations,
  FACT,
  FIXTURE_NOW,
  type FixtureIds,
  fixtureEnv,
  fixtureSettings,
  fixtureTools,
  HANGING_NOTE_TEXT,
  NOTE_TEXT,
} from "./stored-fixtures-harness.js";

const out = resolve(process.argv[2] ?? "test/fixtures/main-2026-12");
const HUNDRED_YEARS_MS = 100 * 365 * 24 * 60 * 60_000;

/** The store as today's code uses it, minus the TTLs (increments keep one: theirs is required). */
function withoutTtls(store: KeyValueStore): KeyValueStore {
  return {
    ...store,
    set: (key, value) => store.set(key, value),
    setIfAbsent: (key, value) => store.setIfAbsent(key, value),
    increment: (key, by) => store.increment(key, by, HUNDRED_YEARS_MS),
    addToSet: (key, member) => store.addToSet(key, member),
    setIfAbsentListed: (entry, listing) =>
      store.setIfAbsentListed({ key: entry.key, value: entry.value }, { set: listing.set, member: listing.member }),
  };
}

const lastUser = (request: ModelRequest): string =>
  String([...request.messages].reverse().find((message) => message.role === "user")?.content ?? "");
const toolMessagesSinceQuestion = (request: ModelRequest): number => {
  const since = [...request.messages].reverse().findIndex((message) => message.role === "user");
  return request.messages.slice(request.messages.length - since).filter((message) => message.role === "tool").length;
};

/** The model of the four conversations, chosen by the question and the steps taken so far. */
const reply: ScriptStep = (request) => {
  if (request.responseFormat === "json_object")
    return say(JSON.stringify({ facts: lastUser(request).includes(conversations.done.text) ? [FACT] : [] }));
  const question = lastUser(request);
  const step = toolMessagesSinceQuestion(request);
  const usage = { promptTokens: 120, completionTokens: 30 };
  if (question.includes(conversations.done.text)) return say("Nice to meet you, Dana.", usage);
  if (question.includes(conversations.paused.text))
    return { ...call("send_payment", { invoice: "INV-7", amount: 120 }, "call_pay"), usage };
  if (question.includes(conversations.interrupted.text)) {
    if (step === 0) return { ...call("post_note", { text: NOTE_TEXT }, "call_note"), usage };
    if (step === 1) return { ...call("calculator", { expression: "2+3" }, "call_add"), usage };
    return { never: true };
  }
  if (question.includes(conversations.executing.text)) return { ...call("post_note", { text: HANGING_NOTE_TEXT }, "call_red"), usage };
  return say("(no script for this)");
};

async function sqliteRows(path: string, sql: string): Promise<Array<Record<string, string>>> {
  const database = new sqlite3.Database(path);
  try {
    return await new Promise((done, fail) =>
      database.all(sql, (error, rows: Array<Record<string, string>>) => (error ? fail(error) : done(rows))),
    );
  } finally {
    await new Promise((closed) => database.close(closed));
  }
}

async function writeStoreFixtures(work: string, settings: Settings): Promise<FixtureIds> {
  const databasePath = join(work, "data", "bot.sqlite");
  const keyFile = join(work, "keys", "signing.key");
  await mkdir(join(work, "data"));
  const owner = await claimStoreOwnership(databasePath);
  if (owner.kind !== "owned") throw new Error(owner.message);
  await copyFile(`${databasePath}.owner`, join(out, "bot.sqlite.owner"));

  const config = loadConfig({ STORE_URL: `sqlite://${databasePath}`, ...fixtureEnv(keyFile) });
  const real = await openStore(config.storeUrl, silentLogger);
  const store = withoutTtls(real);
  let ticks = 0;
  const clock = () => FIXTURE_NOW + ticks++;
  const policy = createRunPolicy({
    settings: fixedSettings(settings),
    store,
    audit: createAuditLog(store, clock),
    logger: silentLogger,
    clock,
  });
  const model = new ScriptedModel([], { whenExhausted: reply });
  const service = createAgentService({ config, model, store, logger: silentLogger, clock, runPolicy: policy });
  const { tools, ran } = fixtureTools();
  const answered: string[] = [];
  service.attach("slack", {
    tools,
    present: (origin) => ({
      sink: () => {},
      finish: async (outcome) => void answered.push(`${origin.conversationKey} ${outcome.status}`),
      fail: async () => {},
    }),
  });
  await service.start();

  const { done, paused, interrupted, executing } = conversations;
  await service.submit({ origin: done.origin, text: done.text }, done.receipt);
  await service.submit({ origin: paused.origin, text: paused.text }, paused.receipt);
  await until(() => answered.length === 2, "the answered and the paused run", 10_000);
  const runId = intakeIdFor("slack", done.receipt);
  await service.feedback.record({
    runId,
    surface: "slack",
    conversationKey: done.origin.conversationKey,
    person: done.origin.requester,
    rating: "up",
    guard: "none",
    link: "https://example.slack.com/archives/C_FIXTURE/p1764579600000100",
    at: FIXTURE_NOW,
  });
  await service.submit({ origin: interrupted.origin, text: interrupted.text }, interrupted.receipt);
  await service.submit({ origin: executing.origin, text: executing.text }, executing.receipt);
  await until(() => ran.includes(`post_note ${HANGING_NOTE_TEXT}`), "the write that hangs", 10_000);
  await until(
    () => model.requests.filter((request) => lastUser(request).includes(interrupted.text)).length === 3,
    "the interrupted run's third step",
    10_000,
  );
  // Facts are written after the answer, in the background: wait for them before the shutdown.
  await until(async () => (await real.get(`facts:${done.origin.conversationKey}`)) !== undefined, "the facts", 10_000);
  await service.close(50);
  await real.close();
  owner.release();

  await copyFile(databasePath, join(out, "bot.sqlite"));
  await copyFile(keyFile, join(out, "signing.key"));
  const reopened = await openStore(config.storeUrl, silentLogger);
  const keys = (await sqliteRows(databasePath, "SELECT key FROM keyv ORDER BY key")).map((row) => row.key!);
  const setKeys = (await sqliteRows(databasePath, "SELECT DISTINCT key FROM keyv_sets ORDER BY key")).map((row) => row.key!);
  const entries = [];
  for (const key of keys) entries.push({ key, value: await reopened.get(key) });
  const sets = [];
  for (const key of setKeys) sets.push({ key, members: await reopened.setMembers(key) });
  await reopened.close();
  await writeFile(join(out, "store.json"), `${JSON.stringify({ entries, sets }, null, 2)}\n`);
  return {
    done: { runId: intakeIdFor("slack", done.receipt), conversationKey: done.origin.conversationKey },
    paused: { runId: intakeIdFor("slack", paused.receipt), callId: "call_pay", conversationKey: paused.origin.conversationKey },
    interrupted: { runId: intakeIdFor("slack", interrupted.receipt), conversationKey: interrupted.origin.conversationKey },
    executing: { runId: intakeIdFor("slack", executing.receipt), callId: "call_red", conversationKey: executing.origin.conversationKey },
  };
}

/** The settings file as JSON and YAML, each checked by today's reader. */
async function writeSettingsFixtures(): Promise<Settings> {
  await writeFile(join(out, "bot.settings.json"), `${JSON.stringify(fixtureSettings, null, 2)}\n`);
  await writeFile(join(out, "bot.settings.yaml"), yamlStringify(fixtureSettings));
  const checks = await Promise.all(["bot.settings.json", "bot.settings.yaml"].map((name) => readSettingsFile(join(out, name))));
  for (const check of checks) if (check.kind !== "ok") throw new Error(check.problems.join("; "));
  return (checks[0] as Extract<SettingsCheck, { kind: "ok" }>).settings;
}

/** A run item, a resume and a held-back expiry as today's BullMQ work queue leaves them in Redis. */
async function writeQueueFixtures(ids: FixtureIds): Promise<void> {
  const server = await startRedisServer();
  const name = "work";
  const queue = createBullmqWorkQueue({ redisUrl: server.url, name, logger: silentLogger, consume: false });
  try {
    const { interrupted, paused } = ids;
    await queue.add({ kind: "run", conversationKey: interrupted.conversationKey, intakeId: interrupted.runId });
    await queue.add({ kind: "resume", conversationKey: paused.conversationKey, runId: paused.runId, callId: paused.callId });
    await queue.add(
      { kind: "expire", conversationKey: paused.conversationKey, runId: paused.runId, callId: paused.callId },
      { delayMs: 60 * 60_000 },
    );
    const redis = new Redis(server.url);
    const mailboxes = [];
    for (const key of (await redis.keys(`${name}-mailbox:owner:*`)).sort()) {
      const hash = key.slice(`${name}-mailbox:owner:`.length);
      mailboxes.push({ hash, owner: await redis.get(key), items: await redis.lrange(`${name}-mailbox:mailbox:${hash}`, 0, -1) });
    }
    const jobs = async (queueName: string) => {
      const found = [];
      for (const key of (await redis.keys(`bull:${queueName}:*`)).sort()) {
        const id = key.slice(`bull:${queueName}:`.length);
        if (!/^(drain|deliver)\./.test(id) || (await redis.type(key)) !== "hash") continue;
        const fields = await redis.hgetall(key);
        found.push({ id, name: fields.name, data: JSON.parse(fields.data ?? "null"), delay: Number(fields.delay ?? 0) });
      }
      return found;
    };
    const fixture = { queue: name, mailboxes, drainJobs: await jobs(name), heldJobs: await jobs(`${name}-held`) };
    redis.disconnect();
    await writeFile(join(out, "bullmq.json"), `${JSON.stringify(fixture, null, 2)}\n`);
  } finally {
    await queue.close(0);
    await server.stop();
  }
}

async function main(): Promise<void> {
  await rm(out, { recursive: true, force: true });
  await mkdir(out, { recursive: true });
  const work = await temporaryFolder();
  try {
    const settings = await writeSettingsFixtures();
    const ids = await writeStoreFixtures(work.path, settings);
    await writeQueueFixtures(ids);
    const commit = execFileSync("git", ["rev-parse", "HEAD"], { encoding: "utf8" }).trim();
    const manifest = { writtenAt: FIXTURE_NOW, writtenBy: "test/support/write-stored-fixtures.ts", commit, ...ids };
    await writeFile(join(out, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);
    process.stdout.write(`${(await readFile(join(out, "manifest.json"), "utf8")).trim()}\n`);
  } finally {
    await work.remove();
  }
}

await main();
