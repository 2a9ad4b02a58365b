// The run record store on SQLite and on a real Redis: filtered pages newest first through the
// cursor, the text filter's bounded scan, retention by age and by count (counters untouched),
// a conversation's records deleted, votes, and stored junk refused.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/logger.js";
import { openStore } from "../../../src/memory/keyv-store.js";
import { recordKey } from "../../../src/memory/run-records/record-index.js";
import { createRunRecordStore, SCAN_BUDGET, type RunRecordStore } from "../../../src/memory/run-records/record-store.js";
import { addUsage, usageBetween } from "../../../src/memory/run-records/usage-counters.js";
import type { KeyValueStore } from "../../../src/memory/types.js";
import { temporaryFolder } from "../../support/temporary-folder.js";
import { NOW, sampleRecord } from "../../support/sample-record.js";
import { startRedisServer, type RedisServer } from "../../support/redis-server.js";
import { redisAvailable } from "../../support/redis-suite.js";

const DAY = 24 * 60 * 60_000;

function backends(): Array<{ name: string; open(): Promise<KeyValueStore>; stop(): Promise<void> }> {
  let folder: Awaited<ReturnType<typeof temporaryFolder>> | undefined;
  let server: RedisServer | undefined;
  let count = 0;
  return [
    {
      name: "SQLite",
      async open() {
        folder ??= await temporaryFolder();
        return openStore(`sqlite://${join(folder.path, `records-${++count}.sqlite`)}`, silentLogger);
      },
      stop: async () => folder?.remove(),
    },
    ...(redisAvailable
      ? [
          {
            name: "Redis",
            async open() {
              server ??= await startRedisServer();
              return openStore(`${server.url}/${++count}`, silentLogger);
            },
            stop: async () => server?.stop(),
          },
        ]
      : []),
  ];
}

describe.each(backends())("run records on $name", (backend) => {
  let store: KeyValueStore;
  let records: RunRecordStore;
  const fresh = async (retention = { days: 30, max: 100_000 }) => {
    store = await backend.open();
    records = createRunRecordStore(store, retention);
  };
  beforeAll(async () => fresh());
  afterAll(async () => {
    await store.close();
    await backend.stop();
  });

  it("lists filtered pages newest first, and the cursor reaches every match once", async () => {
    for (let index = 0; index < 60; index++) await records.save(sampleRecord(index));
    const first = await records.list({ limit: 5 });
    expect(first.runs.map((run) => run.runId)).toEqual(["run-00000", "run-00001", "run-00002", "run-00003", "run-00004"]);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await records.list({ channel: "C1", outcome: "answered", limit: 4, ...(cursor ? { cursor } : {}) });
      seen.push(...page.runs.map((run) => run.runId));
      cursor = page.next;
    } while (cursor);
    const expected = Array.from({ length: 60 }, (_, index) => index).filter((index) => index % 3 === 1 && index % 4 !== 0);
    expect(seen).toEqual(expected.map((index) => `run-${String(index).padStart(5, "0")}`));
    expect((await records.list({ guard: "repeat", user: "U0", limit: 50 })).runs.map((run) => run.runId)).toEqual([
      "run-00000",
      "run-00020",
      "run-00040",
    ]);
    expect((await records.list({ q: "NUMBER 7", limit: 50 })).runs.map((run) => run.runId)).toEqual(["run-00007"]);
    const window = await records.list({ since: NOW - 10 * 60_000, until: NOW - 8 * 60_000, limit: 50 });
    expect(window.runs.map((run) => run.runId)).toEqual(["run-00008", "run-00009", "run-00010"]);
    await expect(records.list({ cursor: "not-ours", limit: 5 })).rejects.toThrow(RangeError);
  });

  it("moves a run between outcome indexes when its paused record is finished", async () => {
    const paused = sampleRecord(1, { runId: "paused-run", status: "paused", outcome: "paused" });
    await records.save(paused);
    expect((await records.list({ outcome: "paused", limit: 5 })).runs.map((run) => run.runId)).toEqual(["paused-run"]);
    await records.save({ ...paused, status: "answered", outcome: "answered" }, paused);
    expect((await records.list({ outcome: "paused", limit: 5 })).runs).toEqual([]);
    expect(await records.noteVote("paused-run", "U9", "up")).toBe(true);
    expect(await records.noteVote("no-such-run", "U9", "up")).toBe(false);
    expect((await records.load("paused-run")).kind === "found" && (await records.load("paused-run"))).toMatchObject({
      record: { votes: { U9: "up" } },
    });
  });

  it("says a stored record that is not one is invalid", async () => {
    await store.set(recordKey("junk"), { version: 1, runId: "junk" });
    expect(await records.load("junk")).toMatchObject({ kind: "invalid" });
    expect(await records.load("absent")).toEqual({ kind: "missing" });
  });

  it("deletes every record of a conversation and nothing else", async () => {
    await fresh();
    for (let index = 0; index < 9; index++) await records.save(sampleRecord(index));
    expect(await records.deleteConversation("slack:T1:C2:1")).toBe(3);
    const left = (await records.list({ limit: 50 })).runs;
    expect(left.map((run) => run.conversationKey)).not.toContain("slack:T1:C2:1");
    expect(left).toHaveLength(6);
    expect((await records.load("run-00002")).kind).toBe("missing");
    expect((await records.conversations(10)).map((entry) => entry.conversationKey).sort()).toEqual(["slack:T1:C0:1", "slack:T1:C1:1"]);
  });

  it("keeps records RUN_RETENTION_DAYS and at most RUN_RETENTION_MAX, and leaves the usage counters alone", async () => {
    await fresh({ days: 2, max: 4 });
    const ages = [0.1, 0.5, 1, 1.5, 1.9, 2.5, 3];
    for (const [index, age] of ages.entries()) await records.save(sampleRecord(index, { startedAt: NOW - age * DAY }));
    await addUsage(store, {
      at: NOW - 3 * DAY,
      surface: "slack",
      channel: "C1",
      person: "U1",
      model: "gpt-4o-mini",
      usage: { prompt: 5, completion: 1, cached: 0 },
      runs: 1,
    });
    expect(await records.sweep(NOW)).toBe(3);
    const left = (await records.list({ limit: 50 })).runs.map((run) => run.runId);
    expect(left).toEqual(["run-00000", "run-00001", "run-00002", "run-00003"]);
    for (const gone of ["run-00004", "run-00005", "run-00006"]) expect((await records.load(gone)).kind).toBe("missing");
    expect((await records.list({ channel: "C2", limit: 50 })).runs.map((run) => run.runId)).toEqual(["run-00002"]);
    const old = await usageBetween(store, NOW - 3 * DAY, NOW - 3 * DAY);
    expect(old[0]!.dimensions.find((dimension) => dimension.kind === "all")!.counts.get("runs")).toBe(1);
  });

  it("bounds the text filter's scan and says where to go on", async () => {
    await fresh();
    const many = SCAN_BUDGET + 50;
    const batch: Promise<void>[] = [];
    for (let index = 0; index < many; index++)
      batch.push(records.save(sampleRecord(index, { question: index === many - 1 ? "the needle" : "hay" })));
    await Promise.all(batch);
    const first = await records.list({ q: "needle", limit: 10 });
    expect(first.runs).toEqual([]);
    expect(first.next).toBeDefined();
    const second = await records.list({ q: "needle", limit: 10, cursor: first.next! });
    expect(second.runs.map((run) => run.question)).toEqual(["the needle"]);
    expect(second.next).toBeUndefined();
  });
});
