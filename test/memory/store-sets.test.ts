// The store's atomic sets (KeyValueStore addToSet / removeFromSet / setMembers) and the lists
// built on them: unfinished messages and waiting approvals. Two clients of one store stand for
// two bot processes; with read-modify-write lists they lost each other's entries.
import { describe, expect, it } from "vitest";
import { createApprovalStore } from "../../src/runs/approvals/approval-store.js";
import { silentLogger } from "../../src/logger.js";
import { createIntakeStore, type IntakeRecord } from "../../src/runs/intake/intake-store.js";
import { storeBackends, useStoreClients } from "../support/store-backends.js";
import { pausedRun } from "../support/run-states.js";

const record = (index: number): IntakeRecord => ({
  version: 1,
  id: `msg${index}`,
  state: "received",
  owner: "boot",
  task: { origin: { surface: "console", conversationKey: `console:c${index}`, requester: { id: "alice" }, place: {} }, text: `q${index}` },
  receivedAt: 1_000 + index,
});

describe.each(storeBackends())("$name sets", (backend) => {
  const clients = useStoreClients(backend);

  it("keeps every member when two clients add at once; an add twice is one member; removal takes one", async () => {
    await Promise.all(
      Array.from({ length: 40 }, (_, index) =>
        (index % 2 === 0 ? clients.first : clients.second).addToSet("set:race", `m${index}`, 60_000),
      ),
    );
    await clients.first.addToSet("set:race", "m0", 60_000);
    expect((await clients.second.setMembers("set:race")).sort()).toEqual(Array.from({ length: 40 }, (_, index) => `m${index}`).sort());
    await Promise.all([
      clients.first.removeFromSet("set:race", "m1"),
      clients.second.removeFromSet("set:race", "m2"),
      clients.first.removeFromSet("set:race", "absent"),
    ]);
    expect(await clients.first.setMembers("set:race")).toHaveLength(38);
    expect(await clients.first.setMembers("set:none")).toEqual([]);
  });

  it("a set expires its TTL after its latest add", async () => {
    await clients.first.addToSet("set:short", "a", 100);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(await clients.second.setMembers("set:short")).toEqual([]);
    await clients.first.addToSet("set:kept", "a");
    expect(await clients.second.setMembers("set:kept")).toEqual(["a"]);
    // An expired set starts empty at its next add: its old members don't come back.
    await clients.first.addToSet("set:short", "b", 60_000);
    expect(await clients.second.setMembers("set:short")).toEqual(["b"]);
  });

  it("refuses a bad TTL", async () => {
    await expect(clients.first.addToSet("set:bad", "a", 0)).rejects.toThrow(/TTL/);
  });

  it("setIfAbsentListed lists the member and writes the value once: the first of two racing clients wins, both stay listed", async () => {
    const listing = (member: string) => ({ set: "set:listed", member, ttlMs: 60_000 });
    const won = await Promise.all([
      clients.first.setIfAbsentListed({ key: "listed:one", value: { by: "first" }, ttlMs: 60_000 }, listing("a")),
      clients.second.setIfAbsentListed({ key: "listed:one", value: { by: "second" }, ttlMs: 60_000 }, listing("b")),
    ]);
    expect(won.filter(Boolean)).toHaveLength(1);
    expect(await clients.first.get("listed:one")).toEqual({ by: won[0] ? "first" : "second" });
    expect((await clients.second.setMembers("set:listed")).sort()).toEqual(["a", "b"]);
    await expect(clients.first.setIfAbsentListed({ key: "listed:two", value: 1, ttlMs: 0 }, listing("c"))).rejects.toThrow(/TTL/);
    expect(await clients.first.get("listed:two")).toBeUndefined();
  });

  it("lists every unfinished message two processes received at once, and forgets the done ones", async () => {
    const intakes = [createIntakeStore(clients.first), createIntakeStore(clients.second)];
    await Promise.all(Array.from({ length: 30 }, (_, index) => intakes[index % 2]!.receive(record(index))));
    expect((await intakes[0]!.unfinished()).map((entry) => entry.id)).toEqual(Array.from({ length: 30 }, (_, index) => `msg${index}`));
    await Promise.all(
      Array.from({ length: 15 }, (_, index) => intakes[index % 2]!.update({ ...record(index), state: "done", result: "answered" })),
    );
    await intakes[1]!.drop("msg29");
    // A redelivery of a done message leaves no entry behind.
    await intakes[0]!.receive({ ...record(3), receivedAt: 9_999 });
    expect((await intakes[1]!.unfinished()).map((entry) => entry.id)).toEqual(Array.from({ length: 14 }, (_, index) => `msg${index + 15}`));
  });

  it("a done record a crash left listed (between update's two writes, or a redelivery's cleanup) leaves the list at its next delivery", async () => {
    const intake = createIntakeStore(clients.first);
    const done = { ...record(50), state: "done" as const, result: "answered" as const };
    // What a kill -9 between the done record's write and its member's removal leaves behind.
    await clients.first.setIfAbsentListed(
      { key: `intake:${done.id}`, value: done, ttlMs: 60_000 },
      {
        set: "intake:unfinished",
        member: JSON.stringify({ id: done.id, conversationKey: done.task.origin.conversationKey, receivedAt: done.receivedAt }),
        ttlMs: 60_000,
      },
    );
    expect((await intake.unfinished()).map((entry) => entry.id)).toContain("msg50");
    // A redelivery in the same millisecond has the same member as the one left behind.
    expect(await createIntakeStore(clients.second).receive({ ...record(50) })).toMatchObject({ won: false, existing: { kind: "found" } });
    expect((await intake.unfinished()).map((entry) => entry.id)).not.toContain("msg50");
    // An unfinished record keeps its own listing through a redelivery.
    await intake.receive(record(51));
    await createIntakeStore(clients.second).receive({ ...record(51), receivedAt: 9_999 });
    expect((await intake.unfinished()).filter((entry) => entry.id === "msg51")).toEqual([
      { id: "msg51", conversationKey: "console:c51", receivedAt: 1_051 },
    ]);
  });

  it("lists every approval two processes paused at once, soonest clients.first, and forgets the removed ones", async () => {
    const key = async () => Buffer.alloc(32, 7);
    const approvals = [clients.first, clients.second].map((store) =>
      createApprovalStore({ store, key, logger: silentLogger, clock: () => 1_000 }),
    );
    await Promise.all(
      Array.from({ length: 20 }, (_, index) => approvals[index % 2]!.save(pausedRun(`run${index}`, 5_000 + index, `a${index}`))),
    );
    expect((await approvals[1]!.waiting()).map((entry) => entry.runId)).toEqual(Array.from({ length: 20 }, (_, index) => `run${index}`));
    await Promise.all(Array.from({ length: 10 }, (_, index) => approvals[index % 2]!.remove(`run${index}`)));
    expect((await approvals[0]!.waiting()).map((entry) => entry.runId)).toEqual(
      Array.from({ length: 10 }, (_, index) => `run${index + 10}`),
    );
  });
});
