// The erasures of removed workspaces booked for later (UNINSTALL_RETENTION_DAYS): kept in the store,
// so one booked before a restart is carried out by the next process when due, and carried out once
// however many processes share the store; one that fails is tried again, one due at once goes now.
import { describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/logger.js";
import { openStore } from "../../../src/memory/keyv-store.js";
import type { KeyValueStore } from "../../../src/memory/types.js";
import { createWorkspaceErasures, type WorkspaceErasures } from "../../../src/adapters/core/workspace-erasures.js";
import { usePerTest } from "../../support/per-test.js";
import { until } from "../../support/until.js";

const { sqliteUrl, closeAfter } = usePerTest();

async function sharedStore(): Promise<KeyValueStore> {
  const store = await openStore(sqliteUrl(), silentLogger);
  closeAfter({ close: () => store.close() });
  return store;
}

/** A process's erasures over `store`, looking every 20 ms; `erased` lists what it deleted. */
function processOn(store: KeyValueStore, erased: string[], fail = () => false): WorkspaceErasures {
  const erasures = createWorkspaceErasures({
    store,
    logger: silentLogger,
    lookEveryMs: 20,
    erase: async (surface, workspace) => {
      if (fail()) throw new Error("the store blinked");
      await new Promise((resolve) => setTimeout(resolve, 30));
      erased.push(`${surface}:${workspace}`);
    },
  });
  closeAfter(erasures);
  return erasures;
}

describe("booked erasures of removed workspaces", () => {
  it("one due at once is carried out now, in the background of the booking", async () => {
    const store = await sharedStore();
    const erased: string[] = [];
    const erasures = processOn(store, erased);
    await erasures.book({ surface: "slack", workspace: "T1", dueAt: Date.now() });
    await erasures.settled();
    expect(erased).toEqual(["slack:T1"]);
    expect(await store.setMembers("workspace:erasures")).toEqual([]);
  });

  it("one booked before a restart is carried out by the next process when due, not before", async () => {
    const store = await sharedStore();
    const before: string[] = [];
    const first = processOn(store, before);
    const dueAt = Date.now() + 400;
    await first.book({ surface: "discord", workspace: "G1", dueAt });
    await first.close();

    const after: string[] = [];
    const next = processOn(store, after);
    next.start();
    await until(() => after.length === 1, "the erasure when due");
    expect(Date.now()).toBeGreaterThanOrEqual(dueAt);
    expect([...before, ...after]).toEqual(["discord:G1"]);
  });

  it("is carried out once by three processes sharing the store, and tried again after a failure", async () => {
    const store = await sharedStore();
    const erased: string[] = [];
    let failures = 1;
    const processes = [0, 1, 2].map(() => processOn(store, erased, () => failures-- > 0));
    for (const erasures of processes) erasures.start();
    await processes[0]!.book({ surface: "slack", workspace: "T2", dueAt: Date.now() + 100 });
    await until(async () => (await store.setMembers("workspace:erasures")).length === 0, "the erasure done");
    await new Promise((resolve) => setTimeout(resolve, 100));
    await Promise.all(processes.map((erasures) => erasures.settled()));
    expect(failures).toBeLessThan(0);
    expect(erased).toEqual(["slack:T2"]);
  });
});
