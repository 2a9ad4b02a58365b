// The approval store's own guards, through its interface on a real SQLite store: how long a paused
// run is kept, what it keeps of a Connect link (nothing), ids that could address another run's
// records, and a waiting list that holds junk.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/logger.js";
import { openStore } from "../../../src/memory/keyv-store.js";
import type { KeyValueStore } from "../../../src/memory/types.js";
import { createApprovalStore } from "../../../src/runs/approvals/approval-store.js";
import { temporaryFolder } from "../../support/temporary-folder.js";
import { pausedRun } from "../../support/run-states.js";

const HOUR_MS = 60 * 60_000;
const NOW = 1_000_000;
const key = async () => Buffer.alloc(32, 7);

let folder: Awaited<ReturnType<typeof temporaryFolder>>;
let store: KeyValueStore;
const ttls = new Map<string, number | undefined>();

beforeAll(async () => {
  folder = await temporaryFolder();
  const real = await openStore(`sqlite://${join(folder.path, "approvals.sqlite")}`, silentLogger);
  store = new Proxy(real, {
    get(target, name, receiver) {
      if (name === "set")
        return async (entryKey: string, value: unknown, ttlMs?: number) => {
          ttls.set(entryKey, ttlMs);
          await target.set(entryKey, value, ttlMs);
        };
      return Reflect.get(target, name, receiver);
    },
  });
});
afterAll(async () => {
  await store.close();
  await folder.remove();
});

const approvals = () => createApprovalStore({ store, key, logger: silentLogger, clock: () => NOW });

describe("approval store", () => {
  it("keeps a paused run for what is left of its approval window and an hour more, so a late click learns it expired", async () => {
    await approvals().save(pausedRun("ttlWindow", NOW + 10 * 60_000));
    expect(ttls.get("approval:run:ttlWindow")).toBe(10 * 60_000 + HOUR_MS);
    // Saved after its window already closed (a slow save): still kept the grace hour, never a zero or negative TTL.
    await approvals().save(pausedRun("ttlLate", NOW - 5 * 60_000));
    expect(ttls.get("approval:run:ttlLate")).toBe(1 + HOUR_MS);
  });

  it("keeps a run waiting for a connection without its Connect link, which is made again when shown", async () => {
    const run = pausedRun("linked", NOW + 10 * 60_000);
    const waiting = {
      index: 1,
      startedAt: NOW,
      text: null,
      calls: [{ id: "w1", name: "post_note", arguments: "{}" }],
      done: [],
      connect: "docs",
    };
    const url = "https://bot.example/oauth/connect?state=a-signed-state";
    await approvals().save({ state: { ...run.state, pending: waiting }, pending: { ...run.pending, connect: { server: "docs", url } } });
    expect(JSON.stringify(await store.get("approval:run:linked"))).not.toContain("a-signed-state");
    const loaded = await approvals().load("linked");
    expect(loaded).toMatchObject({ kind: "found", run: { pending: { connect: { server: "docs" } } } });
    expect(loaded.kind === "found" && loaded.run.pending.connect).toEqual({ server: "docs" });
  });

  it("refuses a run id that is not well formed instead of looking it up", async () => {
    expect(await approvals().load("run:one")).toEqual({ kind: "invalid", reason: "the approval id is not well formed" });
    expect(await approvals().load("")).toEqual({ kind: "invalid", reason: "the approval id is not well formed" });
  });

  it("a run id with a separator in it can't read another run's decision", async () => {
    expect(await approvals().claim("runA", "x:w1", { decision: "approve", decidedBy: { id: "bob" } }, NOW)).toEqual({ won: true });
    expect(await approvals().decisionOf("runA", "x:w1")).toEqual({ decision: "approve", decidedBy: { id: "bob" }, at: NOW });
    expect(await approvals().decisionOf("runA:x", "w1")).toBeUndefined();
  });

  it("lists only the waiting entries that parse: text that is not JSON and JSON of another shape are skipped", async () => {
    await store.addToSet("approval:waiting", "not json {");
    await store.addToSet("approval:waiting", JSON.stringify({ runId: "junk", callId: "w1", expiresAt: "soon", surface: "console" }));
    await approvals().save(pausedRun("listed", NOW + 60_000));
    const waiting = await approvals().waiting();
    expect(waiting.map((entry) => entry.runId)).not.toContain("junk");
    expect(waiting).toContainEqual({ runId: "listed", callId: "w1", expiresAt: NOW + 60_000, surface: "console" });
    expect(waiting.every((entry) => typeof entry.runId === "string" && typeof entry.expiresAt === "number")).toBe(true);
  });
});
