// The intake store's guards: what a message arriving (again) leads to, ids that stay the same
// across versions, a record copied under another message's key, and a listing that holds junk.
import { describe, expect, it } from "vitest";
import { createIntakeStore, intakeDecision, intakeIdFor, openEntries, type IntakeRecord } from "../../../src/runs/intake/intake-store.js";
import { mapStore } from "../../support/map-store.js";

const record = (id: string, overrides: Partial<IntakeRecord> = {}): IntakeRecord => ({
  version: 1,
  id,
  state: "received",
  owner: "boot",
  task: { origin: { surface: "console", conversationKey: `console:${id}`, requester: { id: "alice" }, place: {} }, text: "q" },
  receivedAt: 1_000,
  ...overrides,
});

const member = (id: string, receivedAt: number) => JSON.stringify({ id, conversationKey: `console:${id}`, receivedAt });

describe("the intake store's guards", () => {
  it("a message seen for the first time is new; a done one is done; an unfinished one is in progress here or retaken from a dead boot", () => {
    expect(intakeDecision(undefined, "boot")).toBe("new");
    expect(intakeDecision(record("m1", { state: "done" }), "boot")).toBe("done");
    expect(intakeDecision(record("m1"), "boot")).toBe("in_progress");
    expect(intakeDecision(record("m1"), "another-boot")).toBe("retake");
  });

  it("gives a platform message the id earlier versions gave it: short, free of ':', the same each time", () => {
    const id = intakeIdFor("slack", "C123:1700000000.000100");
    // A message received before an upgrade and redelivered after it must find its record.
    expect(id).toBe("5j0OZCnOtD0tGqLqRY1Splvi");
    expect(id).toHaveLength(24);
    expect(id).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(intakeIdFor("discord", "C123:1700000000.000100")).not.toBe(id);
  });

  it("lists unfinished records oldest first, once per id (its oldest entry), skipping members that do not parse", () => {
    expect(
      openEntries([
        member("late", 3_000),
        "not json {",
        JSON.stringify({ id: "shape", conversationKey: "c", receivedAt: "soon" }),
        member("early", 1_000),
        member("late", 2_000),
      ]),
    ).toEqual([
      { id: "early", conversationKey: "console:early", receivedAt: 1_000 },
      { id: "late", conversationKey: "console:late", receivedAt: 2_000 },
    ]);
  });

  it("a message never received loads as missing; a record copied under another message's key is refused", async () => {
    const store = mapStore();
    const intake = createIntakeStore(store);
    expect(await intake.load("never")).toEqual({ kind: "missing" });
    await store.set("intake:other", record("original"));
    expect(await intake.load("other")).toEqual({ kind: "invalid", reason: "the stored message record failed validation" });
    expect(await intake.load("original")).toEqual({ kind: "missing" });
  });

  it("a redelivery of an unfinished message keeps it listed once; after it is done nothing is left listed", async () => {
    const intake = createIntakeStore(mapStore());
    expect(await intake.receive(record("again"))).toEqual({ won: true });
    expect(await intake.receive(record("again"))).toMatchObject({ won: false, existing: { kind: "found" } });
    expect(await intake.unfinished()).toEqual([{ id: "again", conversationKey: "console:again", receivedAt: 1_000 }]);
    // Redelivered later: the platform's copy carries another arrival time, and must not stay listed under it.
    expect(await intake.receive(record("again", { receivedAt: 9_999 }))).toMatchObject({ won: false });
    await intake.update(record("again", { state: "done", result: "answered" }));
    expect(await intake.unfinished()).toEqual([]);
  });

  it("a message whose stored record can't be read is not left listed by its redelivery", async () => {
    const store = mapStore();
    const intake = createIntakeStore(store);
    await store.set("intake:garbled", { version: 1, id: "garbled", state: "nonsense" });
    expect(await intake.receive(record("garbled"))).toEqual({
      won: false,
      existing: { kind: "invalid", reason: "the stored message record failed validation" },
    });
    expect(await intake.unfinished()).toEqual([]);
  });
});
