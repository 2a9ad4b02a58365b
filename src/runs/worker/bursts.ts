// A burst: the messages one person sends in one conversation, each within MESSAGE_DEBOUNCE_MS of
// the one before, before a run starts, are one question. The first message's run waits out the
// window after the newest, then takes the others up: their texts after its own, in order, with
// their files. Durable in this order: each one taken is marked (done, merged into this run)
// before this record holds the merged task, and they leave the inbox last; a replay gathers again,
// finds the marked ones still listed (merged into it) and takes them once, so a message of a
// burst is never lost nor answered twice. A message answered through a reply of its own (Discord's
// /ask, whose "thinking…" waits for its own answer) is never merged.
import { setTimeout as sleep } from "node:timers/promises";
import type { Task } from "../api/task.js";
import type { IntakeRecord } from "../intake/intake-store.js";
import { sentBefore } from "../intake/sent-order.js";
import type { WorkContext } from "./work-context.js";

/** The store's bound on a record's files. */
const MAX_FILES = 100;

/** The record whose run starts now, holding the whole burst; the same record when there was none. */
export async function gatherBurst(work: WorkContext, record: IntakeRecord, signal: AbortSignal): Promise<IntakeRecord> {
  const { debounceMs } = work.deps.conversations;
  if (debounceMs === 0 || record.task.reply) return record;
  let burst = await burstAfter(work, record, debounceMs);
  for (;;) {
    const newest = Math.max(record.receivedAt, ...burst.map((other) => other.receivedAt));
    const wait = newest + debounceMs - work.deps.clock();
    // Shutting down: what arrived is one question, what did not runs on its own.
    if (wait <= 0 || !(await waited(wait, signal))) break;
    const grown = await burstAfter(work, record, debounceMs);
    // Nothing came during the wait: the window is over, whatever a clock that stands still says.
    if (grown.length === burst.length) break;
    burst = grown;
  }
  if (burst.length === 0) return record;
  for (const other of burst)
    if (other.state !== "done") await work.intake.update({ ...other, state: "done", result: "merged", into: record.id });
  const merged: IntakeRecord = {
    ...record,
    task: mergedTask(
      record.task as Task,
      burst.map((other) => other.task as Task),
    ) as IntakeRecord["task"],
    merged: [...(record.merged ?? []), ...burst.map((other) => other.id)],
  };
  await work.intake.update(merged);
  work.deps.logger.info({ runId: record.id, merged: burst.length }, "a burst of messages is one question");
  return merged;
}

/** The person's messages after `record`'s, each within the window of the one before, oldest first. */
async function burstAfter(work: WorkContext, record: IntakeRecord, debounceMs: number): Promise<IntakeRecord[]> {
  const { origin } = record.task;
  const listed = (await work.inbox.waiting(origin.conversationKey)).filter((id) => id !== record.id && !record.merged?.includes(id));
  const theirs = (await work.intake.loadMany(listed))
    .filter((other) => other.task.origin.requester.id === origin.requester.id && !other.task.reply)
    .filter((other) => other.state === "received" || (other.result === "merged" && other.into === record.id))
    .filter((other) => sentBefore(record, other) < 0)
    .sort(sentBefore);
  const burst: IntakeRecord[] = [];
  let previous = record.receivedAt;
  for (const other of theirs) {
    if (other.receivedAt - previous > debounceMs) break;
    burst.push(other);
    previous = Math.max(previous, other.receivedAt);
  }
  return burst;
}

/** Pure: one question of a burst's messages, in order; the first message's thread context and reply stay. */
export function mergedTask(first: Task, rest: readonly Task[]): Task {
  const text = [first, ...rest]
    .map((task) => task.text)
    .filter((part) => part !== "")
    .join("\n\n");
  const files = [first, ...rest].flatMap((task) => task.files ?? []).slice(0, MAX_FILES);
  const { files: _files, ...kept } = first;
  return { ...kept, text, ...(files.length > 0 ? { files } : {}) };
}

/** False when `signal` aborted first. */
async function waited(ms: number, signal: AbortSignal): Promise<boolean> {
  try {
    await sleep(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}
