// A person deleted a message. A question that has not run is dropped (its queued item then finds
// it done); one whose run works is stopped without a summary (RunStops.questionDeleted), and a
// tombstone keeps a replay of that run (after a crash) from starting it again; one answered
// already is left to the surface (DELETE_ANSWERS_WITH_QUESTION). A redelivered deletion finds the
// question done and does nothing more.
import type { Person } from "../../contracts/types.js";
import type { KeyValueStore } from "../../memory/types.js";
import type { DeletionRequest, DeletionResult } from "../api/edits.js";
import type { Inbox } from "./inbox.js";
import { intakeIdFor, type IntakeStore } from "./intake-store.js";

/** As long as an unfinished record is kept: a replay any later finds no record to run. */
const TOMBSTONE_TTL_MS = 7 * 24 * 60 * 60_000;

const tombstoneKey = (intakeId: string) => `intake:deleted:${intakeId}`;

export interface DeletionDeps {
  readonly intake: IntakeStore;
  readonly inbox: Inbox;
  readonly store: KeyValueStore;
  /** Whether the run of this intake id showed its answer (its record may not say done yet). */
  answered(intakeId: string): Promise<boolean>;
  /** Stops a run whose question was deleted; undefined when this process can't (no stops). */
  readonly stopDeleted?: (runId: string, requester: Person) => Promise<{ readonly kind: string }>;
}

export async function takeDeletion(deps: DeletionDeps, request: DeletionRequest): Promise<DeletionResult> {
  const id = intakeIdFor(request.surface, request.receipt);
  const loaded = await deps.intake.load(id);
  if (loaded.kind !== "found") return { kind: "ignored", reason: "not a question to the bot" };
  const { record } = loaded;
  const { origin } = record.task;
  const { conversationKey } = origin;
  if (record.state === "received") {
    await deps.intake.update({ ...record, state: "done", result: "deleted" });
    await deps.inbox.remove(conversationKey, [id]);
    return { kind: "dropped", runId: id, origin };
  }
  if (record.state === "running" && !(await deps.answered(id))) {
    await deps.store.set(tombstoneKey(id), true, TOMBSTONE_TTL_MS);
    await deps.stopDeleted?.(id, record.task.origin.requester);
    return { kind: "stopping", runId: id, origin };
  }
  if (record.state === "running" || record.result === "answered") return { kind: "answered", runId: id, origin };
  return { kind: "ignored", reason: `its question ended ${record.result ?? "already"}` };
}

/** Whether the question of a run taken up again was deleted while it worked (the run must not start again). */
export async function wasDeleted(store: KeyValueStore, intakeId: string): Promise<boolean> {
  return (await store.get(tombstoneKey(intakeId))) === true;
}
