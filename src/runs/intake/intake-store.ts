// One record per accepted chat message: received → running → done. It is the dedupe (a
// redelivery of a message that is done is ignored) and it holds the task, so a worker in any
// process, or after a restart, can run the message without the event that brought it.
import { createHash } from "node:crypto";
import { z } from "zod";
import type { Task } from "../api/task.js";
import { RunStateSchema } from "../../agent/loop/run-state.js";
import type { Surface } from "../../contracts/types.js";
import type { KeyValueStore } from "../../memory/types.js";
import { FileDescriptorSchema } from "../../files/file-ref.js";

/** A finished record is kept this long, to recognise a redelivery (Slack retries for about an hour). */
const DONE_TTL_MS = 24 * 60 * 60_000;
/** An unfinished record outlives any outage the next start must recover from. */
const OPEN_TTL_MS = 7 * 24 * 60 * 60_000;
/** A store set (one member per unfinished record), so processes sharing Redis never lose each other's entries. */
const OPEN_SET_KEY = "intake:unfinished";

const TaskSchema = z.object({
  origin: RunStateSchema.shape.origin,
  text: z.string(),
  threadContext: RunStateSchema.shape.messages.optional(),
  contextSource: z.record(z.string(), z.string()).optional(),
  /** How the surface answers the message (an interaction token): dropped when the record is done. */
  reply: z.record(z.string(), z.string()).optional(),
  /** Records of an older version: the surface admitted it at the event, so the worker does not count it again. */
  admitted: z.boolean().optional(),
  /** The message's files, fetched by the worker when the run starts (records from before files have none). */
  files: z.array(FileDescriptorSchema).max(100).optional(),
  /** The platform's order of the message (Slack's ts, Discord's id): a run takes a person's messages in it (sent-order.ts). */
  sentOrder: z
    .string()
    .regex(/^\d{1,30}(\.\d{1,12})?$/)
    .optional(),
  /** The intake id of the question this message edits (its text is the edited question). */
  edits: z.string().max(64).optional(),
});

const RecordSchema = z.object({
  version: z.literal(1),
  id: z.string().min(1).max(64),
  state: z.enum(["received", "running", "done"]),
  /** The boot id of the process that took the message up last. */
  owner: z.string(),
  task: TaskSchema,
  receivedAt: z.number(),
  /**
   * `refused`: the settings file turned it away (access or a limit); a redelivery is not run or counted again.
   * `merged`: one question with the person's earlier message of a burst (`into`); `steered`: added to the run `into`;
   * `deleted`: its author deleted it before it was answered.
   */
  result: z.enum(["answered", "paused", "failed", "refused", "merged", "steered", "deleted"]).optional(),
  /** The run that took this message up (merged, steered). */
  into: z.string().max(64).optional(),
  /** The messages of a burst this record's task holds besides its own, in order. */
  merged: z.array(z.string().max(64)).max(100).optional(),
});
const OpenEntrySchema = z.object({ id: z.string(), conversationKey: z.string(), receivedAt: z.number() });

export type IntakeRecord = z.infer<typeof RecordSchema>;
export type OpenIntake = z.infer<typeof OpenEntrySchema>;
export type IntakeLoad =
  | { readonly kind: "found"; readonly record: IntakeRecord }
  | { readonly kind: "missing" }
  | { readonly kind: "invalid"; readonly reason: string };

/** What to do with a message that arrives (again). */
export type IntakeDecision = "new" | "done" | "in_progress" | "retake";

/**
 * With one process per store (SQLite) a record owned by another boot id belongs to a process
 * that died: its run is gone, so the message is taken up again, never ignored.
 */
export function intakeDecision(record: IntakeRecord | undefined, bootId: string): IntakeDecision {
  if (!record) return "new";
  if (record.state === "done") return "done";
  return record.owner === bootId ? "in_progress" : "retake";
}

/** Stable, short and free of `:` (BullMQ job ids): the same platform message always gets the same id. */
export function intakeIdFor(surface: Surface, receipt: string): string {
  return createHash("sha256").update(`${surface}\n${receipt}`).digest("base64url").slice(0, 24);
}

export interface IntakeStore {
  /** Writes the record unless one exists; returns the one that was there first. */
  receive(record: IntakeRecord): Promise<{ readonly won: true } | { readonly won: false; readonly existing: IntakeLoad }>;
  load(id: string): Promise<IntakeLoad>;
  /** Several records in one round trip, in the order asked; one missing or unreadable is left out. */
  loadMany(ids: readonly string[]): Promise<IntakeRecord[]>;
  /** Saves a changed record; a done one leaves the list of unfinished records. */
  update(record: IntakeRecord): Promise<void>;
  /** Takes a record that can't be run (gone, unreadable) off the list of unfinished ones. */
  drop(id: string): Promise<void>;
  /** Records not done yet, oldest first: the next start takes them up again. */
  unfinished(): Promise<OpenIntake[]>;
  /** Deletes the record, then its listing (its workspace removed the bot): a worker that takes its item finds nothing to run. */
  erase(id: string): Promise<void>;
}

const recordKey = (id: string) => `intake:${id}`;

/** A record's member in the set of unfinished ones: the same record always gives the same member. */
const memberOf = (record: IntakeRecord): string =>
  JSON.stringify({
    id: record.id,
    conversationKey: record.task.origin.conversationKey,
    receivedAt: record.receivedAt,
  } satisfies OpenIntake);

/** Pure: the set's members that parse (a member that does not parse is skipped: the set is untrusted). */
function parseMembers(members: readonly string[]): Array<OpenIntake & { readonly member: string }> {
  return members.flatMap((member) => {
    try {
      const parsed = OpenEntrySchema.safeParse(JSON.parse(member));
      return parsed.success ? [{ ...parsed.data, member }] : [];
    } catch {
      return [];
    }
  });
}

/** Pure: the unfinished records listed by `members`, oldest first, one per id. */
export function openEntries(members: readonly string[]): OpenIntake[] {
  return parseMembers(members)
    .sort((a, b) => a.receivedAt - b.receivedAt)
    .filter((entry, index, all) => all.findIndex((other) => other.id === entry.id) === index)
    .map(({ id, conversationKey, receivedAt }) => ({ id, conversationKey, receivedAt }));
}

export function createIntakeStore(store: KeyValueStore): IntakeStore {
  const remove = async (id: string): Promise<void> => {
    const listed = parseMembers(await store.setMembers(OPEN_SET_KEY)).filter((entry) => entry.id === id);
    await Promise.all(listed.map((entry) => store.removeFromSet(OPEN_SET_KEY, entry.member)));
  };

  const load = async (id: string): Promise<IntakeLoad> => {
    const raw = await store.get(recordKey(id));
    if (raw === undefined) return { kind: "missing" };
    const parsed = RecordSchema.safeParse(raw);
    if (!parsed.success || parsed.data.id !== id) return { kind: "invalid", reason: "the stored message record failed validation" };
    return { kind: "found", record: parsed.data };
  };

  return {
    load,
    async loadMany(ids) {
      const raws = await store.getMany(ids.map(recordKey));
      return raws.flatMap((raw, index) => {
        const parsed = RecordSchema.safeParse(raw);
        return parsed.success && parsed.data.id === ids[index] ? [parsed.data] : [];
      });
    },
    async receive(record) {
      // Listed with the record, in one step: a crash right after the record is written must not hide it from the next start.
      const member = memberOf(record);
      const listing = { set: OPEN_SET_KEY, member, ttlMs: OPEN_TTL_MS };
      if (await store.setIfAbsentListed({ key: recordKey(record.id), value: record, ttlMs: OPEN_TTL_MS }, listing)) return { won: true };
      const existing = await load(record.id);
      // The listing went in with the attempt. A redelivery leaves no second entry: an unfinished record there first
      // is listed under its own member. A done one (or one gone) keeps none, not even a member a crash left behind.
      if (existing.kind !== "found" || existing.record.state === "done") await remove(record.id);
      else if (memberOf(existing.record) !== member) await store.removeFromSet(OPEN_SET_KEY, member);
      return { won: false, existing };
    },
    async update(record) {
      if (record.state === "done") {
        await store.set(recordKey(record.id), record, DONE_TTL_MS);
        // The record's own member is the only one listed for it (receive and update list no other), so it goes
        // without reading and parsing the whole set: that read grew with the backlog and held up every ack on SQLite.
        // A kill between these two writes leaves a done record listed: the next start finds it done and drops it.
        await store.removeFromSet(OPEN_SET_KEY, memberOf(record));
        return;
      }
      await store.addToSet(OPEN_SET_KEY, memberOf(record), OPEN_TTL_MS);
      await store.set(recordKey(record.id), record, OPEN_TTL_MS);
    },
    drop: remove,
    async unfinished() {
      return openEntries(await store.setMembers(OPEN_SET_KEY));
    },
    async erase(id) {
      // The record first: one left listed is dropped by the next start, one left unlisted would still run.
      await store.delete(recordKey(id));
      await remove(id);
    },
  };
}

export function taskOf(record: IntakeRecord): Task {
  return record.task as Task;
}
