// A person edited a message. A question that has not started reads as edited (its record holds the
// new text); one whose run works gets the edit as a message of its own, recorded like any other
// (a steer "The person edited their question to: …" before the run's next model call, or per the
// channel's policy); one answered already, or a message that was never for the bot, is left, unless
// the edit mentions the bot (then it is a new question). Every step is idempotent: a redelivered
// edit finds the question as edited, or its own record.
import type { EditRequest, EditResult } from "../api/edits.js";
import type { SubmitResult, Task } from "../api/task.js";
import { intakeIdFor, type IntakeStore } from "./intake-store.js";

export interface EditDeps {
  readonly intake: IntakeStore;
  /** Whether the run of this intake id showed its answer (its record may not say done yet). */
  answered(intakeId: string): Promise<boolean>;
  /** Records and queues a message (intake/submit.ts). */
  submit(task: Task, receipt: string): Promise<SubmitResult>;
}

export async function takeEdit(deps: EditDeps, edit: EditRequest): Promise<EditResult> {
  const id = intakeIdFor(edit.task.origin.surface, edit.receipt);
  const loaded = await deps.intake.load(id);
  const asNew = async (why: string): Promise<EditResult> => {
    if (!edit.addsMention) return { kind: "ignored", reason: why };
    const submitted = await deps.submit(edit.task, edit.editReceipt);
    return submitted.kind === "accepted" ? { kind: "asked" } : { kind: "ignored", reason: "a redelivered edit" };
  };
  if (loaded.kind !== "found") return asNew("not a question to the bot");
  const { record } = loaded;
  // Only its author edits a message; a record of someone else's under this id is not this message.
  if (record.task.origin.requester.id !== edit.task.origin.requester.id) return { kind: "ignored", reason: "someone else's message" };
  if (record.state === "received") {
    if (record.task.text !== edit.task.text) await deps.intake.update({ ...record, task: { ...record.task, text: edit.task.text } });
    return { kind: "replaced" };
  }
  if (record.state === "done" || (await deps.answered(record.id))) return asNew("answered already");
  const { reply: _reply, files: _files, ...task } = edit.task;
  const submitted = await deps.submit({ ...task, edits: record.id }, edit.editReceipt);
  return submitted.kind === "accepted" ? { kind: "for_run", runId: record.id } : { kind: "ignored", reason: "a redelivered edit" };
}
