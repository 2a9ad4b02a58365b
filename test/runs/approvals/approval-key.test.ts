// The approval signing key never lives in the store: whoever can read and write the whole store
// (or holds a copy of its folder) still can't make an altered request run.
import { createHmac } from "node:crypto";
import { cp, mkdir, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Redis } from "ioredis";
import sqlite3 from "sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deriveApprovalKey } from "../../../src/runs/approvals/approval-key.js";
import { call, say, ScriptedModel } from "../../support/model-scripted.js";
import { canonicalJson } from "../../../src/agent/tools/signature.js";
import type { PendingApproval, RunOutcome } from "../../../src/contracts/types.js";
import type { KeyValueStore } from "../../../src/memory/types.js";
import { capturingLogger } from "../../support/capturing-logger.js";
import { until } from "../../support/until.js";
import { startRedisServer, type RedisServer } from "../../support/redis-server.js";
import { describeWithRedis } from "../../support/redis-suite.js";
import { noteTool, originFor, type NoteTool, type ServiceHarness } from "../../support/service-harness.js";
import { useServiceHarnesses } from "../../support/service-harness.js";
import { aliceDecides } from "../../support/approval-harness.js";

const services = useServiceHarnesses();
let redis: RedisServer | undefined;
let counter = 0;

/** The Redis URL inside a describeWithRedis block. */
function redisUrl(): string {
  if (!redis) throw new Error("redis-server is not running");
  return redis.url;
}

/** A store folder and a key file beside it (not inside it), both fresh. */
function sqliteSetup(): { storeFolder: string; storeUrl: string; keyFile: string } {
  counter += 1;
  const storeFolder = join(services.folder(), `data-${counter}`);
  return {
    storeFolder,
    storeUrl: `sqlite://${join(storeFolder, "bot.sqlite")}`,
    keyFile: join(services.folder(), `keys-${counter}`, "approval.key"),
  };
}

async function pausedPost(options: {
  storeUrl: string;
  env: Record<string, string>;
  note?: NoteTool;
}): Promise<{ harness: ServiceHarness; note: NoteTool; pending: PendingApproval }> {
  const note = options.note ?? noteTool();
  const harness = await services.start({
    model: new ScriptedModel([call("post_note", { text: "hello team" })], { whenExhausted: say("Done.") }),
    storeUrl: options.storeUrl,
    tools: [note.tool],
    env: options.env,
  });
  const outcome: RunOutcome = await harness.service.ask(
    { origin: originFor("alice", `console:key-${++counter}`), text: "post hello" },
    harness.sink,
  );
  if (outcome.status !== "paused") throw new Error(`expected a pause, got ${outcome.status}`);
  return { harness, note, pending: outcome.pending };
}

/** Every string anywhere in a stored value, JSON text unpacked, as an attacker reading the store would collect them. */
function stringsIn(value: unknown, found: Set<string> = new Set()): Set<string> {
  if (typeof value === "string") {
    found.add(value);
    try {
      stringsIn(JSON.parse(value), found);
    } catch {
      // Not JSON: the string itself is the candidate.
    }
  } else if (Array.isArray(value)) {
    for (const item of value) stringsIn(item, found);
  } else if (value !== null && typeof value === "object") {
    for (const [name, item] of Object.entries(value)) stringsIn(item, found.add(name));
  }
  return found;
}

async function sqliteRows(path: string): Promise<string[]> {
  const database = new sqlite3.Database(path);
  try {
    return await new Promise((resolve, reject) =>
      database.all("SELECT key, value FROM keyv", (error, rows: Array<{ key: string; value: string }>) =>
        error ? reject(error) : resolve(rows.flatMap((row) => [row.key, row.value])),
      ),
    );
  } finally {
    await new Promise((resolve) => database.close(resolve));
  }
}

async function redisValues(url: string): Promise<string[]> {
  const client = new Redis(url);
  try {
    const keys = await client.keys("*");
    const values = await Promise.all(
      keys.map(async (key) => ((await client.type(key)) === "string" ? ((await client.get(key)) ?? "") : "")),
    );
    return [...keys, ...values];
  } finally {
    client.disconnect();
  }
}

/**
 * Alters the waiting request (another text, for everyone) and re-signs it with every key an
 * attacker could make from what the store holds, writing each attempt back and clicking Approve.
 */
async function forgeAttempts(harness: ServiceHarness, pending: PendingApproval, everything: readonly string[]): Promise<string[]> {
  const key = `approval:run:${pending.runId}`;
  const stored = (await harness.store.get(key)) as {
    state: { pending: { calls: { arguments: string }[] } };
    pending: { args: unknown };
    mac: string;
  };
  stored.state.pending.calls[0]!.arguments = JSON.stringify({ text: "@everyone send me your passwords" });
  stored.pending.args = { text: "@everyone send me your passwords" };
  const signed = canonicalJson({ state: stored.state, pending: stored.pending });
  const candidates = [...stringsIn(everything)].filter((text) => text.length > 0);
  const outcomes: string[] = [];
  for (const text of candidates) {
    for (const secret of [Buffer.from(text), Buffer.from(text, "base64"), deriveApprovalKey(text)]) {
      await harness.store.set(key, { ...stored, mac: createHmac("sha256", secret).update(signed).digest("base64url") });
      const result = await aliceDecides(harness.service, pending, "approve", harness.sink);
      outcomes.push(result.kind === "unknown" ? result.message : result.kind);
      if (result.kind !== "unknown") return outcomes;
    }
  }
  return outcomes;
}

describe("full access to the store can't forge a waiting request", () => {
  it("SQLite: re-signing with anything found in the store is refused, nothing runs", async () => {
    const { storeUrl, storeFolder, keyFile } = sqliteSetup();
    const { harness, note, pending } = await pausedPost({ storeUrl, env: { APPROVAL_KEY_FILE: keyFile } });
    const outcomes = await forgeAttempts(harness, pending, await sqliteRows(join(storeFolder, "bot.sqlite")));
    expect(outcomes.length).toBeGreaterThan(10);
    expect(new Set(outcomes)).toEqual(
      new Set(["This approval request can't be used: the stored request was altered. Nothing was run; ask again."]),
    );
    expect(note.posted).toEqual([]);
  });
});

describe("SQLite: a key file outside the store's folder", () => {
  it("is created once with mode 0600, and a copy of the store's folder carries no key", async () => {
    const { storeUrl, storeFolder, keyFile } = sqliteSetup();
    const { harness, pending } = await pausedPost({ storeUrl, env: { APPROVAL_KEY_FILE: keyFile } });
    expect((await stat(keyFile)).mode & 0o777).toBe(0o600);
    const key = (await readFile(keyFile, "utf8")).trim();
    for (const name of await readdir(storeFolder)) {
      const bytes = await readFile(join(storeFolder, name));
      expect(bytes.includes(key), name).toBe(false);
      expect(bytes.includes(Buffer.from(key, "base64")), name).toBe(false);
    }
    await services.stop(harness);

    // Someone with a copy of data/ runs the bot on it: without the key file the copy can't vouch for anything.
    const copy = sqliteSetup();
    await cp(storeFolder, copy.storeFolder, { recursive: true });
    const note = noteTool();
    const thief = await services.start({
      model: new ScriptedModel([say("Done.")]),
      storeUrl: copy.storeUrl,
      tools: [note.tool],
      env: { APPROVAL_KEY_FILE: copy.keyFile },
    });
    const result = await aliceDecides(thief.service, pending, "approve", thief.sink);
    expect(result).toMatchObject({ kind: "unknown", message: expect.stringMatching(/altered/) });
    expect(note.posted).toEqual([]);
  });

  it("signs across a restart with the same file", async () => {
    const { storeUrl, keyFile } = sqliteSetup();
    const { harness, pending } = await pausedPost({ storeUrl, env: { APPROVAL_KEY_FILE: keyFile } });
    await services.stop(harness);
    const note = noteTool();
    const again = await services.start({
      model: new ScriptedModel([say("Posted.")]),
      storeUrl,
      tools: [note.tool],
      env: { APPROVAL_KEY_FILE: keyFile },
    });
    const result = await aliceDecides(again.service, pending, "approve", again.sink);
    expect(result.kind).toBe("resumed");
    expect(note.posted).toEqual(["hello team"]);
  });

  it("a damaged key file stops approvals with a clear log line; once it is removed, the next request works", async () => {
    const { storeUrl, keyFile } = sqliteSetup();
    await mkdir(join(keyFile, ".."), { recursive: true });
    await writeFile(keyFile, "not a key\n", { mode: 0o600 });
    const note = noteTool();
    const { logger, lines } = capturingLogger();
    const harness = await services.start({
      model: new ScriptedModel([call("post_note", { text: "one" }), call("post_note", { text: "two" })], { whenExhausted: say("Done.") }),
      storeUrl,
      tools: [note.tool],
      env: { APPROVAL_KEY_FILE: keyFile },
      logger,
    });
    await until(() => lines.some((line) => line.level === 50), "the start's key check in the log");
    expect(lines.find((line) => line.level === 50)).toMatchObject({
      msg: "approvals can't be signed until the approval key file can be used",
      err: {
        message: `The approval key file ${keyFile} is damaged (expected the base64 key the bot wrote); delete it to make a new one, which voids the approvals waiting`,
      },
    });
    const refused = await harness.service.ask({ origin: originFor("alice", "console:damaged-key"), text: "post one" }, harness.sink);
    expect(refused).toMatchObject({ status: "answered", stop: { guard: "store_unavailable" } });
    await rm(keyFile);
    const paused = await harness.service.ask({ origin: originFor("alice", "console:damaged-key"), text: "post two" }, harness.sink);
    if (paused.status !== "paused") throw new Error(`expected a pause, got ${paused.status}`);
    const result = await aliceDecides(harness.service, paused.pending, "approve", harness.sink);
    expect(result.kind).toBe("resumed");
    expect(note.posted).toEqual(["two"]);
  });
});

describeWithRedis("on Redis", () => {
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  describe("full access to Redis can't forge a waiting request", () => {
    it("Redis: re-signing with anything found in Redis is refused, nothing runs", async () => {
      const env = { SLACK_BOT_TOKEN: "xoxb-test", SLACK_SIGNING_SECRET: "the-deployment-signing-secret", OPENAI_API_KEY: "demo" };
      const { harness, note, pending } = await pausedPost({ storeUrl: redisUrl(), env });
      const outcomes = await forgeAttempts(harness, pending, await redisValues(redisUrl()));
      expect(outcomes.length).toBeGreaterThan(10);
      expect(new Set(outcomes)).toEqual(
        new Set(["This approval request can't be used: the stored request was altered. Nothing was run; ask again."]),
      );
      expect(note.posted).toEqual([]);
    });
  });

  describe("Redis: a key derived from the deployment's shared chat secret", () => {
    it("lets every process with the same secret decide, refuses one with another secret, and recommends APPROVAL_SECRET once", async () => {
      const env = { SLACK_BOT_TOKEN: "xoxb-test", SLACK_SIGNING_SECRET: "shared-signing-secret", OPENAI_API_KEY: "demo" };
      const { pending } = await pausedPost({ storeUrl: redisUrl(), env });

      const stranger = noteTool();
      const other = await services.start({
        model: new ScriptedModel([say("Done.")]),
        storeUrl: redisUrl(),
        tools: [stranger.tool],
        env: { ...env, SLACK_SIGNING_SECRET: "another-deployment" },
      });
      const refused = await aliceDecides(other.service, pending, "approve", other.sink);
      expect(refused).toMatchObject({ kind: "unknown", message: expect.stringMatching(/altered/) });

      const { logger, warnings } = capturingLogger();
      const peer = noteTool();
      const second = await services.start({
        model: new ScriptedModel([say("Posted.")]),
        storeUrl: redisUrl(),
        tools: [peer.tool],
        env,
        logger,
      });
      const approved = await aliceDecides(second.service, pending, "approve", second.sink);
      expect(approved.kind).toBe("resumed");
      expect(peer.posted).toEqual(["hello team"]);
      expect(stranger.posted).toEqual([]);
      const recommended = warnings().filter((line) => line.msg.includes("APPROVAL_SECRET is not set"));
      expect(recommended).toHaveLength(1);
      expect(recommended[0]!.msg).toMatch(/derived from SLACK_SIGNING_SECRET/);
      expect(JSON.stringify(warnings())).not.toContain("shared-signing-secret");
    });
  });

  describe("Redis without a shared secret", () => {
    it("falls back to this machine's key file and says APPROVAL_SECRET is needed across machines", async () => {
      const { keyFile } = sqliteSetup();
      const { logger, warnings } = capturingLogger();
      await services.start({ model: new ScriptedModel([]), storeUrl: redisUrl(), env: { APPROVAL_KEY_FILE: keyFile }, logger });
      expect(warnings().map((line) => line.msg)).toEqual([
        expect.stringMatching(/^APPROVAL_SECRET is not set and no chat secret is shared: .* Set APPROVAL_SECRET$/),
      ]);
    });
  });
});

/** Every store call but close() rejects while `isDown()` holds. */
function failingWhile(real: KeyValueStore, isDown: () => boolean): KeyValueStore {
  return new Proxy(real, {
    get(target, name, receiver) {
      const value: unknown = Reflect.get(target, name, receiver);
      if (typeof value !== "function" || name === "close") return value;
      return (...args: unknown[]) =>
        isDown() ? Promise.reject(new Error("store went away")) : (value as (...params: unknown[]) => unknown).apply(target, args);
    },
  });
}

describe("a store that failed while the service started", () => {
  it("does not leave approvals broken: the next request is saved and decided", async () => {
    const { storeUrl, keyFile } = sqliteSetup();
    let down = true;
    const note = noteTool();
    const harness = await services.start({
      model: new ScriptedModel([call("post_note", { text: "later" })], { whenExhausted: say("Posted.") }),
      storeUrl,
      tools: [note.tool],
      env: { APPROVAL_KEY_FILE: keyFile },
      wrapStore: (real) => failingWhile(real, () => down),
    });
    // Let the start's reads (approvals left waiting, the key) meet the failing store first.
    await new Promise((resolve) => setImmediate(resolve));
    down = false;
    const paused = await harness.service.ask({ origin: originFor("alice", "console:store-back"), text: "post later" }, harness.sink);
    if (paused.status !== "paused") throw new Error(`expected a pause, got ${paused.status}`);
    const result = await aliceDecides(harness.service, paused.pending, "approve", harness.sink);
    expect(result.kind).toBe("resumed");
    expect(note.posted).toEqual(["later"]);
  });
});
