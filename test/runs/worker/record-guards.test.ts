// Two guards of stored run data the mutation run found unchecked: a message record copied under
// another message's id is not taken for that message, and a Stop for a run no process has
// recorded (on a shared store) is answered "not running" instead of failing.
import { describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/logger.js";
import { createIntakeStore, type IntakeRecord } from "../../../src/runs/intake/intake-store.js";
import { createRunStops } from "../../../src/runs/worker/run-stops.js";
import { mapStore } from "../../support/map-store.js";

const record: IntakeRecord = {
  version: 1,
  id: "msgA",
  state: "received",
  owner: "boot",
  task: { origin: { surface: "console", conversationKey: "console:a", requester: { id: "alice" }, place: {} }, text: "pay 100" },
  receivedAt: 1_000,
};

describe("stored run data that does not belong where it is found", () => {
  it("a message record copied under another message's key is invalid there, and still found under its own", async () => {
    const store = mapStore();
    const intake = createIntakeStore(store);
    expect(await intake.receive(record)).toEqual({ won: true });
    await store.set("intake:msgB", await store.get("intake:msgA"));
    expect(await intake.load("msgB")).toMatchObject({ kind: "invalid" });
    expect(await intake.load("msgA")).toMatchObject({ kind: "found", record: { id: "msgA" } });
  });

  it("a Stop for a run with no record on a shared store is not running, and one with a damaged record too", async () => {
    const store = mapStore();
    const stops = createRunStops({ store, shared: true, logger: silentLogger, ttlMs: 60_000 });
    expect(await stops.request("run-x", { id: "boss" }, () => true)).toEqual({ kind: "not_running" });
    await store.set("run:live:run-y", { requester: "not a person" });
    expect(await stops.request("run-y", { id: "boss" }, () => true)).toEqual({ kind: "not_running" });
    await stops.close();
  });
});
