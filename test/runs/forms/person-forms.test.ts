// How a run's forms are kept across processes sharing a store: a process that takes a run over
// closes the forms its predecessor left (their questions died with it) even while their lease
// still runs, but never a form of the same run it holds itself; a form whose lease ran out can't
// be opened; an answer given in another process reaches the waiting one.
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { FormQuestion } from "../../../src/contracts/types.js";
import { silentLogger } from "../../../src/logger.js";
import { createFormAnswers } from "../../../src/runs/forms/form-answers.js";
import { createFormStore } from "../../../src/runs/forms/form-store.js";
import { createPersonForms } from "../../../src/runs/forms/person-forms.js";
import { openStore } from "../../../src/memory/keyv-store.js";
import type { KeyValueStore } from "../../../src/memory/types.js";
import { temporaryFolder } from "../../support/temporary-folder.js";
import { until } from "../../support/until.js";
import { originFor } from "../../support/service-harness.js";

const QUESTION: FormQuestion = {
  kind: "form",
  server: "rooms",
  message: "Which room?",
  fields: [{ kind: "text", name: "room", label: "Room", required: false, default: "oak" }],
};
const call = { runId: "run1", callId: "c1", origin: originFor("alice") };

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The real SQLite store (leases expire as they do in production), shared by the "processes" of a test. */
async function sharedStore(): Promise<KeyValueStore> {
  const folder = await temporaryFolder();
  const store = await openStore(`sqlite://${join(folder.path, "forms.sqlite")}`, silentLogger);
  cleanups.push(async () => {
    await store.close();
    await folder.remove();
  });
  return store;
}

function process(store: KeyValueStore, leaseMs = 60_000) {
  const forms = createFormStore(store, Date.now);
  const person = createPersonForms({ forms, timeoutMs: 60_000, logger: silentLogger, clock: Date.now, pollMs: 20, leaseMs });
  return { person, answers: createFormAnswers({ forms, clock: Date.now, notify: (formId) => person.notify(formId) }) };
}

describe("a run's forms across processes", () => {
  it("the process that takes a run over closes the forms its predecessor left, not its own", async () => {
    const store = await sharedStore();
    const before = process(store);
    const left = await before.person.open(QUESTION, call);
    const after = process(store);
    const mine = await after.person.open(QUESTION, call);
    const alsoMine = await after.person.open(QUESTION, { ...call, callId: "c2" });
    expect(await after.answers.lookup(left.formId, { id: "alice" })).toMatchObject({ kind: "closed", closed: { kind: "restarted" } });
    expect((await after.answers.lookup(mine.formId, { id: "alice" })).kind).toBe("open");
    expect((await after.answers.lookup(alsoMine.formId, { id: "alice" })).kind).toBe("open");
    expect(await before.person.wait(left, new AbortController().signal)).toEqual({ action: "cancel", reason: "unavailable" });
  });

  it("a form whose lease ran out is closed when someone opens it; an answer taken in another process reaches the waiting one", async () => {
    const store = await sharedStore();
    const dead = process(store, 1);
    const gone = await dead.person.open(QUESTION, call);
    await until(async () => !(await createFormStore(store, Date.now).leaseHeld(gone.formId)), "the dead process's lease to run out");
    const other = process(store);
    expect(await other.answers.lookup(gone.formId, { id: "alice" })).toMatchObject({ kind: "closed", closed: { kind: "restarted" } });

    const waiting = process(store);
    const form = await waiting.person.open(QUESTION, { ...call, runId: "run2" });
    const answer = waiting.person.wait(form, new AbortController().signal);
    expect(await other.answers.reply({ formId: form.formId, by: { id: "alice" }, action: "accept", inputs: {} })).toMatchObject({
      kind: "answered",
    });
    expect(await answer).toEqual({ action: "accept", values: { room: "oak" }, by: { id: "alice" } });
  });
});
