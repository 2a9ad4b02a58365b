// A store written by the version before run records (test/fixtures/pre-records.sqlite, written by
// main at b0c2504 with its own history, memory, audit and checkpoint code: history of
// 12 turns, a fact, an audit entry, a checkpoint) still loads: the history is trimmed by the new
// block rule, the rest reads as before, records can be kept in it, and a read-only tool (replay)
// finds no records there rather than failing.
import { copyFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAuditLog } from "../../src/governance/audit-log.js";
import { silentLogger } from "../../src/logger.js";
import { createConversationHistory } from "../../src/memory/history.js";
import { openStore } from "../../src/memory/keyv-store.js";
import { createLongTermMemory } from "../../src/memory/long-term-memory.js";
import { createRunRecordStore } from "../../src/memory/run-records/record-store.js";
import { usageBetween } from "../../src/memory/run-records/usage-counters.js";
import { createCheckpointStore } from "../../src/runs/worker/checkpoint-store.js";
import { temporaryFolder } from "../support/temporary-folder.js";
import { sampleRecord } from "../support/sample-record.js";
import { fixturePath } from "../support/repo-paths.js";

let folder: Awaited<ReturnType<typeof temporaryFolder>>;
beforeAll(async () => {
  folder = await temporaryFolder();
});
afterAll(async () => folder.remove());

async function copy(name: string): Promise<string> {
  const path = join(folder.path, name);
  await copyFile(fixturePath("pre-records.sqlite"), path);
  return `sqlite://${path}`;
}

describe("a store from before run records", () => {
  it("opens read-only with no records and no counters", async () => {
    const store = await openStore(await copy("read-only.sqlite"), silentLogger, { readOnly: true });
    expect((await createRunRecordStore(store, { days: 30, max: 100 }).list({ limit: 10 })).runs).toEqual([]);
    expect((await usageBetween(store, Date.now(), Date.now()))[0]!.dimensions).toEqual([]);
    await store.close();
  });

  it("loads its history (trimmed in a block), facts, audit entries and checkpoint, and keeps records", async () => {
    const store = await openStore(await copy("writable.sqlite"), silentLogger);
    const history = createConversationHistory(store, {
      maxTurns: 10,
      maxTokens: 100_000,
      countTokens: (text) => text.length,
      logger: silentLogger,
    });
    expect((await history.load("console:old")).map((turn) => turn.user)).toEqual([
      "question 7",
      "question 8",
      "question 9",
      "question 10",
      "question 11",
      "question 12",
    ]);
    expect(
      (await createLongTermMemory(store, { maxFacts: 10, logger: silentLogger }).list("console:old")).map((fact) => fact.text),
    ).toEqual(["The old team deploys on Fridays."]);
    expect(await createAuditLog(store).list({ limit: 5 })).toMatchObject([{ kind: "write_executed", runId: "run-old", outcome: "ok" }]);
    expect(await createCheckpointStore(store).load("run-old")).toMatchObject({
      kind: "found",
      state: { question: "old question", usage: { promptTokens: 12, completionTokens: 3 } },
    });
    const records = createRunRecordStore(store, { days: 30, max: 100 });
    await records.save(sampleRecord(1));
    expect((await records.list({ limit: 10 })).runs.map((run) => run.runId)).toEqual(["run-00001"]);
    await store.close();
  });
});
