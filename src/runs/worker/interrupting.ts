// The `interrupt` policy: a message from the requester of the run in flight in its conversation
// stops that run as their Stop would (it ends with its summary), and the message's own run, next
// in the conversation's lane, asks both: the stopped run's question, then the new message. Asked
// as the message is recorded, before it is queued; someone else's message is only queued.
import type { IntakeRecord, IntakeStore } from "../intake/intake-store.js";
import type { LiveRuns } from "./live-runs.js";
import type { WorkerDeps } from "./worker-deps.js";

/** Longer than a stopped run takes to end. */
const CLAIM_TTL_MS = 60 * 60_000;
const claimKey = (runId: string) => `conversation:interrupted:${runId}`;

/** The message's record as its run should ask it: with the interrupted run's question first when it stopped one. */
export async function interruptFor(
  deps: Pick<WorkerDeps, "conversations" | "stops" | "logger" | "store">,
  stores: { readonly intake: IntakeStore; readonly live: LiveRuns },
  record: IntakeRecord,
): Promise<IntakeRecord> {
  const { origin } = record.task;
  if (!deps.stops || deps.conversations.policyFor(origin) !== "interrupt") return record;
  const live = await stores.live.of(origin.conversationKey);
  if (!live || live.runId === record.id || live.requester.id !== origin.requester.id) return record;
  const stopped = await deps.stops.request(live.runId, origin.requester, (requester) => requester.id === origin.requester.id);
  if (stopped.kind !== "stopping") return record;
  // The first message that interrupts a run asks its question again; a second one, before the run has ended, comes after.
  if (!(await deps.store.setIfAbsent(claimKey(live.runId), record.id, CLAIM_TTL_MS))) return record;
  const running = await stores.intake.load(live.runId);
  deps.logger.info({ runId: live.runId, by: record.id }, "a new message from its requester interrupts a run");
  if (running.kind !== "found") return record;
  // An edit of the stopped run's question is that question now; another message comes after it.
  const text = record.task.edits === live.runId ? record.task.text : `${running.record.task.text}\n\n${record.task.text}`;
  const both: IntakeRecord = { ...record, task: { ...record.task, text } };
  await stores.intake.update(both);
  return both;
}
