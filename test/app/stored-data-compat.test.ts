// Data written by `main` as of 2026-12 (test/fixtures/main-2026-12, made by
// test/support/write-stored-fixtures.ts) must still load and resume after any change: intake
// records, a delta-written checkpoint, write-ledger entries, a signed approval and its key, the
// queue's payloads and BullMQ job data, the SQLite owner lock file, facts, history, feedback,
// audit entries, limit counters and the settings file. A format change that breaks one of these
// fails here; change the reader, never the fixture.
import { chmod, copyFile, mkdir, readFile, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createApprovalStore } from "../../src/runs/approvals/approval-store.js";
import { say, ScriptedModel, type ScriptStep } from "../support/model-scripted.js";
import type { ModelRequest, RunOutcome } from "../../src/contracts/types.js";
import { loadConfig } from "../../src/config.js";
import { createAuditLog } from "../../src/governance/audit-log.js";
import { createRunPolicy } from "../../src/governance/run-policy.js";
import { readSettingsFile } from "../../src/governance/settings-file.js";
import { fixedSettings } from "../../src/governance/settings-source.js";
import { silentLogger } from "../../src/logger.js";
import { createFeedbackBook } from "../../src/memory/feedback.js";
import { createConversationHistory } from "../../src/memory/history.js";
import { openStore } from "../../src/memory/keyv-store.js";
import { createLongTermMemory } from "../../src/memory/long-term-memory.js";
import { claimStoreOwnership } from "../../src/memory/store-lease.js";
import type { KeyValueStore } from "../../src/memory/types.js";
import { createAgentService } from "../../src/runs/service/create-agent-service.js";
import { decodeItem, parseDrainJobId } from "../../src/runs/queue/bullmq-codec.js";
import { createMailboxes } from "../../src/runs/queue/bullmq-mailbox.js";
import { createBullmqWorkQueue } from "../../src/runs/queue/bullmq-work-queue.js";
import { createCheckpointStore } from "../../src/runs/worker/checkpoint-store.js";
import { createIntakeStore, taskOf } from "../../src/runs/intake/intake-store.js";
import type { WorkItem } from "../../src/runs/queue/work-queue.js";
import { createWriteLedger, UNKNOWN_OUTCOME } from "../../src/runs/worker/write-ledger.js";
import { temporaryFolder } from "../support/temporary-folder.js";
import { until } from "../support/until.js";
import { startRedisServer, type RedisServer } from "../support/redis-server.js";
import { describeWithRedis, redisAvailable } from "../support/redis-suite.js";
import {
  FACT,
  FIXTURE_NOW,
  fixtureEnv,
  fixtureTools,
  type FixtureIds,
  HANGING_NOTE_TEXT,
  NOTE_TEXT,
} from "../support/stored-fixtures-harness.js";
import { fixturePath } from "../support/repo-paths.js";
import { dataInside } from "../../src/agent/context/data-blocks.js";

const FIXTURE = fixturePath("main-2026-12");
const fixtureJson = async <T>(name: string): Promise<T> => JSON.parse(await readFile(join(FIXTURE, name), "utf8")) as T;

interface StoreDump {
  readonly entries: ReadonlyArray<{ readonly key: string; readonly value: unknown }>;
  readonly sets: ReadonlyArray<{ readonly key: string; readonly members: readonly string[] }>;
}
interface QueueDump {
  readonly queue: string;
  readonly mailboxes: ReadonlyArray<{ readonly hash: string; readonly owner: string; readonly items: readonly string[] }>;
  readonly drainJobs: ReadonlyArray<{ readonly id: string; readonly data: unknown }>;
  readonly heldJobs: ReadonlyArray<{ readonly id: string; readonly name: string; readonly data: { readonly item: string } }>;
}

const HUNDRED_YEARS_MS = 100 * 365 * 24 * 60 * 60_000;
let folder: Awaited<ReturnType<typeof temporaryFolder>>;
let ids: FixtureIds;
let dump: StoreDump;
let redis: RedisServer | undefined;
const closing: Array<() => Promise<void>> = [];

beforeAll(async () => {
  folder = await temporaryFolder();
  ids = await fixtureJson<FixtureIds>("manifest.json");
  dump = await fixtureJson<StoreDump>("store.json");
  if (redisAvailable) redis = await startRedisServer();
});
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});
afterAll(async () => {
  await redis?.stop();
  await folder.remove();
});

let copies = 0;
/** The committed SQLite file and key file, copied where a process may change them. */
async function copiedStore(): Promise<{ storeUrl: string; keyFile: string }> {
  copies += 1;
  const data = join(folder.path, `copy-${copies}`, "data");
  const keyFile = join(folder.path, `copy-${copies}`, "keys", "signing.key");
  await mkdir(data, { recursive: true });
  await mkdir(join(keyFile, ".."), { recursive: true });
  await copyFile(join(FIXTURE, "bot.sqlite"), join(data, "bot.sqlite"));
  await copyFile(join(FIXTURE, "signing.key"), keyFile);
  await chmod(keyFile, 0o600);
  return { storeUrl: `sqlite://${join(data, "bot.sqlite")}`, keyFile };
}

async function opened(url: string): Promise<KeyValueStore> {
  const store = await openStore(url, silentLogger);
  closing.push(() => store.close());
  return store;
}

/** The dump written into a fresh store through the store seam (counters as counters). */
async function imported(url: string): Promise<KeyValueStore> {
  const store = await opened(url);
  for (const { key, value } of dump.entries) {
    if (typeof value === "number") await store.increment(key, value, HUNDRED_YEARS_MS);
    else await store.set(key, value);
  }
  for (const { key, members } of dump.sets) for (const member of members) await store.addToSet(key, member);
  return store;
}

const signingKey = async () => Buffer.from((await readFile(join(FIXTURE, "signing.key"), "utf8")).trim(), "base64");

/** Every record of the fixture, read with today's loaders. */
async function expectEveryRecordLoads(store: KeyValueStore): Promise<void> {
  const intake = createIntakeStore(store);
  for (const [name, state] of [
    ["done", "done"],
    ["paused", "done"],
    ["interrupted", "running"],
    ["executing", "running"],
  ] as const)
    expect(await intake.load(ids[name].runId), name).toMatchObject({ kind: "found", record: { state, id: ids[name].runId } });
  expect((await intake.unfinished()).map((entry) => entry.id)).toEqual([ids.interrupted.runId, ids.executing.runId]);

  const checkpoints = createCheckpointStore(store);
  const interrupted = await checkpoints.load(ids.interrupted.runId);
  if (interrupted.kind !== "found") throw new Error(`the interrupted run's checkpoint: ${interrupted.kind}`);
  expect(interrupted.parts).toBe(3);
  expect(interrupted.state.steps.flatMap((step) => step.calls).map((call) => [call.tool, call.outcome, call.observation])).toEqual([
    ["post_note", "ok", `posted: ${NOTE_TEXT}`],
    ["calculator", "ok", "5"],
  ]);
  expect(await checkpoints.load(ids.executing.runId)).toMatchObject({ kind: "found", parts: 1 });

  const ledger = createWriteLedger(store, silentLogger);
  expect((await ledger.entries(ids.interrupted.runId)).map((entry) => [entry.tool, entry.state])).toEqual([["post_note", "done"]]);
  expect(await ledger.entries(ids.executing.runId)).toMatchObject([
    { callId: ids.executing.callId, state: "executing", tool: "post_note", args: JSON.stringify({ text: HANGING_NOTE_TEXT }) },
  ]);

  const approvals = createApprovalStore({ store, key: signingKey, logger: silentLogger, clock: () => FIXTURE_NOW });
  const paused = await approvals.load(ids.paused.runId);
  expect(paused).toMatchObject({
    kind: "found",
    run: {
      pending: { callId: ids.paused.callId, tool: "send_payment", args: { invoice: "INV-7", amount: 120 }, requester: { id: "U_DANA" } },
    },
  });
  const expiresAt = paused.kind === "found" ? paused.run.pending.expiresAt : Number.NaN;
  expect(expiresAt - FIXTURE_NOW).toBeGreaterThan(59 * 60_000);
  expect(await approvals.waiting()).toEqual([{ runId: ids.paused.runId, callId: ids.paused.callId, expiresAt, surface: "slack" }]);
  expect(await approvals.decisionOf(ids.paused.runId, ids.paused.callId)).toBeUndefined();

  const facts = createLongTermMemory(store, { maxFacts: 200, logger: silentLogger });
  expect((await facts.list(ids.done.conversationKey)).map((fact) => fact.text)).toEqual([FACT]);
  const history = createConversationHistory(store, {
    maxTurns: 10,
    maxTokens: 4000,
    countTokens: (text) => text.length,
    logger: silentLogger,
  });
  expect(await history.load(ids.done.conversationKey)).toMatchObject([
    { user: expect.stringContaining("Dana"), assistant: "Nice to meet you, Dana." },
  ]);
  const feedback = createFeedbackBook(store);
  expect(await feedback.totals()).toMatchObject({ up: 1, down: 0 });
  expect(await feedback.recent(10)).toMatchObject([{ runId: ids.done.runId, rating: "up", person: { id: "U_DANA" } }]);
  expect((await createAuditLog(store).list({})).map((entry) => [entry.kind, entry.runId])).toEqual([
    ["write_executed", ids.interrupted.runId],
    ["approval_requested", ids.paused.runId],
  ]);

  const settings = await readSettingsFile(join(FIXTURE, "bot.settings.json"));
  if (settings.kind !== "ok") throw new Error(settings.problems.join("; "));
  const policy = createRunPolicy({
    settings: fixedSettings(settings.settings),
    store,
    audit: createAuditLog(store),
    logger: silentLogger,
    clock: () => FIXTURE_NOW,
  });
  const asked = await intake.load(ids.interrupted.runId);
  if (asked.kind !== "found") throw new Error(asked.kind);
  expect(await policy.allowances(taskOf(asked.record).origin)).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ scope: "user", limit: "runs", left: 30 - 4 }),
      expect.objectContaining({ scope: "user", limit: "tokens", left: 200_000 - 600 }),
    ]),
  );
}

describe("the stored data of main 2026-12", () => {
  it("loads from the committed SQLite file", async () => {
    const { storeUrl } = await copiedStore();
    await expectEveryRecordLoads(await opened(storeUrl));
  });

  it("loads when written into a fresh SQLite store", async () => {
    await expectEveryRecordLoads(await imported(`sqlite://${join(folder.path, "imported", "bot.sqlite")}`));
  });

  it("the settings file reads the same as JSON and as YAML", async () => {
    const json = await readSettingsFile(join(FIXTURE, "bot.settings.json"));
    const yaml = await readSettingsFile(join(FIXTURE, "bot.settings.yaml"));
    expect(json).toMatchObject({
      kind: "ok",
      settings: { limits: { user: { tokensPerDay: 200_000 } }, channels: { C_FIXTURE: { maxSteps: 12 } } },
    });
    expect(yaml).toEqual(json);
  });

  it("the owner lock file: a live owner on this host keeps the store, a dead one's is taken over", async () => {
    const written = await fixtureJson<Record<string, unknown>>("bot.sqlite.owner");
    expect(written).toEqual({ pid: expect.any(Number), host: expect.any(String) });
    const databasePath = join(folder.path, "lock", "bot.sqlite");
    await mkdir(join(databasePath, ".."), { recursive: true });
    // The format as written, with the owner moved to this host: the parent process is alive, pid 4194305 never is.
    await writeFile(`${databasePath}.owner`, JSON.stringify({ ...written, pid: process.ppid, host: hostname() }));
    expect(await claimStoreOwnership(databasePath)).toMatchObject({
      kind: "taken",
      message: expect.stringContaining(`pid ${process.ppid}`),
    });
    await writeFile(`${databasePath}.owner`, JSON.stringify({ ...written, pid: 4_194_305, host: hostname() }));
    const claim = await claimStoreOwnership(databasePath);
    expect(claim.kind).toBe("owned");
    if (claim.kind === "owned") claim.release();
  });

  it("the queue's payloads decode, and drain job ids name the mailbox and its owner", async () => {
    const queue = await fixtureJson<QueueDump>("bullmq.json");
    const items = [...queue.mailboxes.flatMap((mailbox) => mailbox.items), ...queue.heldJobs.map((job) => job.data.item)].map(decodeItem);
    expect(items.map((item) => (item.kind === "item" ? item.item.kind : item.reason))).toEqual(["resume", "run", "expire"]);
    expect(queue.drainJobs.map((job) => parseDrainJobId(job.id))).toEqual(
      queue.mailboxes.map(({ hash, owner }) => ({ hash, generation: owner })),
    );
  });
});

/** The fixture's runs go on: the model answers each from what it was sent. */
const resumedReply: ScriptStep = (request: ModelRequest) => {
  if (request.responseFormat === "json_object") return say('{"facts": []}');
  const tools = request.messages.filter((message) => message.role === "tool").map((message) => dataInside(message.content as string));
  if (tools.some((text) => text.includes(UNKNOWN_OUTCOME))) return say("I can't tell whether the note was posted; please check.");
  if (tools.some((text) => text.startsWith("paid "))) return say("Paid INV-7.");
  return say(`Done: ${tools.join(" / ")}`);
};

async function resumedService(storeUrl: string, keyFile: string) {
  const config = loadConfig({ STORE_URL: storeUrl, ...fixtureEnv(keyFile) });
  const store = await opened(storeUrl);
  let ticks = 0;
  const clock = () => FIXTURE_NOW + 60_000 + ticks++;
  const settings = await readSettingsFile(join(FIXTURE, "bot.settings.json"));
  if (settings.kind !== "ok") throw new Error(settings.problems.join("; "));
  const runPolicy = createRunPolicy({
    settings: fixedSettings(settings.settings),
    store,
    audit: createAuditLog(store, clock),
    logger: silentLogger,
    clock,
  });
  const model = new ScriptedModel([], { whenExhausted: resumedReply });
  const service = createAgentService({ config, model, store, logger: silentLogger, clock, runPolicy });
  closing.push(() => service.close(1_000));
  const tools = fixtureTools();
  const shown = new Map<string, RunOutcome>();
  service.attach("slack", {
    tools: tools.tools,
    present: (origin) => ({
      sink: () => {},
      finish: async (outcome) => void shown.set(origin.conversationKey, outcome),
      fail: async (error) => {
        throw error;
      },
    }),
  });
  // Starting takes up what the stored data left unfinished (the interrupted and the executing run).
  await service.start();
  return { service, store, model, ran: tools.ran, shown };
}

describe("a process started on the stored data of main 2026-12", () => {
  it("continues the interrupted run from its delta checkpoint, and reports the write it was in as of unknown outcome", async () => {
    const { storeUrl, keyFile } = await copiedStore();
    const { store, model, ran, shown } = await resumedService(storeUrl, keyFile);
    await until(() => shown.has(ids.interrupted.conversationKey) && shown.has(ids.executing.conversationKey), "both answers", 10_000);
    expect(shown.get(ids.interrupted.conversationKey)).toMatchObject({ status: "answered", answer: `Done: posted: ${NOTE_TEXT} / 5` });
    const unknown = shown.get(ids.executing.conversationKey);
    expect(unknown).toMatchObject({ status: "answered", answer: "I can't tell whether the note was posted; please check." });
    expect(unknown?.steps.flatMap((step) => step.calls)).toMatchObject([
      { callId: ids.executing.callId, tool: "post_note", outcome: "error", observation: expect.stringContaining(UNKNOWN_OUTCOME) },
    ]);
    // Neither write ran again, and the model was asked once per run (plus nothing for the answered ones).
    expect(ran).toEqual([]);
    expect(model.requests.filter((request) => request.responseFormat !== "json_object")).toHaveLength(2);
    await until(async () => (await createIntakeStore(store).unfinished()).length === 0, "both records done");
  });

  it("decides the paused approval with today's key: the payment runs once and the run answers", async () => {
    const { storeUrl, keyFile } = await copiedStore();
    const { service, ran, shown } = await resumedService(storeUrl, keyFile);
    const result = await service.decide(
      { runId: ids.paused.runId, callId: ids.paused.callId, decision: "approve", decidedBy: { id: "U_DANA" } },
      () => {},
    );
    expect(result).toMatchObject({ kind: "resumed", decision: "approve" });
    await until(() => shown.has(ids.paused.conversationKey), "the resumed run's answer", 10_000);
    expect(shown.get(ids.paused.conversationKey)).toMatchObject({ status: "answered", answer: "Paid INV-7." });
    expect(ran).toEqual(["send_payment INV-7 120"]);
  });
});

describeWithRedis("the stored data of main 2026-12 on Redis", () => {
  it("loads when written into Redis", async () => {
    await expectEveryRecordLoads(await imported(redis!.url));
  });

  it("the queue's mailboxes and held-back job are worked by today's BullMQ queue", async () => {
    const queue = await fixtureJson<QueueDump>("bullmq.json");
    const client = new Redis(redis!.url, { maxRetriesPerRequest: null });
    closing.push(async () => void client.disconnect());
    // As a process that crashed right after its pushes left them: owned mailboxes, their drain jobs gone.
    const mailboxes = createMailboxes(client, `${queue.queue}-mailbox`);
    for (const mailbox of queue.mailboxes) for (const item of mailbox.items) await mailboxes.push(mailbox.hash, item, mailbox.owner);
    const held = new Queue(`${queue.queue}-held`, { connection: client });
    closing.push(() => held.close());
    for (const job of queue.heldJobs) await held.add(job.name, job.data, { jobId: job.id });
    const handled: WorkItem[] = [];
    const work = createBullmqWorkQueue({ redisUrl: redis!.url, name: queue.queue, logger: silentLogger });
    closing.push(() => work.close(0));
    work.start(async (item) => void handled.push(item), 2);
    await until(() => handled.length === 3, "the three stored items", 10_000);
    expect(handled.map((item) => item.kind).sort()).toEqual(["expire", "resume", "run"]);
    expect(handled).toContainEqual({ kind: "run", conversationKey: ids.interrupted.conversationKey, intakeId: ids.interrupted.runId });
  });
});
