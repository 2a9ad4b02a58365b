// An edit or a deletion of a question, by where its run stands: not started, working, answered
// (its answer shown though its record does not say done yet), and delivered twice.
import { describe, expect, it } from "vitest";
import type { TaskOrigin } from "../../../src/contracts/types.js";
import type { Task } from "../../../src/runs/api/task.js";
import { createInbox } from "../../../src/runs/intake/inbox.js";
import { takeDeletion } from "../../../src/runs/intake/deletions.js";
import { takeEdit } from "../../../src/runs/intake/edits.js";
import { createIntakeStore, intakeIdFor, type IntakeRecord } from "../../../src/runs/intake/intake-store.js";
import { mapStore } from "../../support/map-store.js";

const origin: TaskOrigin = { surface: "slack", conversationKey: "slack:T:C:1", requester: { id: "U1" }, place: {} };
const ID = intakeIdFor("slack", "C:1");

async function setup(state: IntakeRecord["state"], options: { answered?: boolean } = {}) {
  const store = mapStore();
  const intake = createIntakeStore(store);
  await intake.receive({ version: 1, id: ID, state, owner: "boot", task: { origin, text: "summarise #releases" }, receivedAt: 1 });
  const submitted: Array<{ task: Task; receipt: string }> = [];
  const answered = async () => options.answered === true;
  const edits = {
    intake,
    answered,
    submit: async (task: Task, receipt: string) => {
      const first = !submitted.some((entry) => entry.receipt === receipt);
      submitted.push({ task, receipt });
      return first
        ? ({ kind: "accepted", intakeId: receipt } as const)
        : ({ kind: "duplicate", intakeId: receipt, state: "in_progress" } as const);
    },
  };
  const stops: string[] = [];
  const deletions = {
    intake,
    inbox: createInbox(store),
    store,
    answered,
    stopDeleted: async (runId: string) => (stops.push(runId), { kind: "stopping" }),
  };
  return { intake, edits, deletions, submitted, stops };
}

const edit = (addsMention = false) => ({
  task: { origin, text: "summarise #deploys" },
  receipt: "C:1",
  editReceipt: "C:1:edited:2",
  addsMention,
});

describe("an edit of a question", () => {
  it("not started: the question reads as edited", async () => {
    const { edits, intake } = await setup("received");
    expect(await takeEdit(edits, edit())).toEqual({ kind: "replaced" });
    const loaded = await intake.load(ID);
    expect(loaded.kind === "found" && loaded.record.task.text).toBe("summarise #deploys");
  });

  it("while its run works: recorded for the run, once however often it is delivered", async () => {
    const { edits, submitted } = await setup("running");
    expect(await takeEdit(edits, edit())).toEqual({ kind: "for_run", runId: ID });
    expect(await takeEdit(edits, edit())).toEqual({ kind: "ignored", reason: "a redelivered edit" });
    expect(submitted[0]!.task).toMatchObject({ text: "summarise #deploys", edits: ID });
  });

  it("after its answer showed (the record not done yet): left, unless it adds a mention", async () => {
    const { edits, submitted } = await setup("running", { answered: true });
    expect(await takeEdit(edits, edit())).toEqual({ kind: "ignored", reason: "answered already" });
    expect(await takeEdit(edits, edit(true))).toEqual({ kind: "asked" });
    expect(submitted.map((entry) => entry.task.edits)).toEqual([undefined]);
  });
});

describe("a deletion of a question", () => {
  it("not started: dropped; delivered again: nothing more", async () => {
    const { deletions, stops } = await setup("received");
    expect(await takeDeletion(deletions, { surface: "slack", receipt: "C:1" })).toMatchObject({ kind: "dropped", runId: ID });
    expect(await takeDeletion(deletions, { surface: "slack", receipt: "C:1" })).toMatchObject({ kind: "ignored" });
    expect(stops).toEqual([]);
  });

  it("while its run works: stopped; after its answer showed: answered, not stopped", async () => {
    const working = await setup("running");
    expect(await takeDeletion(working.deletions, { surface: "slack", receipt: "C:1" })).toMatchObject({ kind: "stopping" });
    expect(working.stops).toEqual([ID]);
    const shown = await setup("running", { answered: true });
    expect(await takeDeletion(shown.deletions, { surface: "slack", receipt: "C:1" })).toMatchObject({ kind: "answered", runId: ID });
    expect(shown.stops).toEqual([]);
  });
});
