// Schedules in the store (SQLite or Redis alike): one record per schedule, sets listing the ones
// not ended (all, per owner, per channel) so listings and limits never scan the whole store,
// and one set of every active schedule's next slot, so a start arms them all from one read. Every change is a read-modify-write under a short lock, in this process and
// across processes sharing Redis: a slot being fired and its owner cancelling never lose each
// other's change.
import type { Surface, TaskOrigin } from "../contracts/types.js";
import type { KeyValueStore } from "../memory/types.js";
import { channelOf, ScheduleRecordSchema, type ScheduleRecord } from "./schedule-record.js";

const OPEN_SET = "schedules:open";
/** One member per active schedule, `<id> <next slot>`: the start arms every schedule from this one read. */
const ARMED_SET = "schedules:armed";
const ARMED_MEMBER = /^(sch_[a-z0-9]{8}) (\d{1,16})$/;
const recordKey = (id: string) => `schedule:${id}`;
const lockKey = (id: string) => `schedule:lock:${id}`;
const ownerSet = (surface: Surface, ownerId: string) => `schedules:owner:${surface}:${ownerId}`;
const channelSet = (surface: Surface, channel: string) => `schedules:channel:${surface}:${channel}`;

/** An ended schedule is kept this long, so its id still answers ("already cancelled"). */
const ENDED_TTL_MS = 30 * 24 * 60 * 60_000;
/** A lock outlives any one change; a process that died holding it blocks that schedule this long at most. */
const LOCK_TTL_MS = 10_000;
const LOCK_WAIT_MS = 8_000;
const LOCK_RETRY_MS = 15;

export type ScheduleLoad =
  | { readonly kind: "found"; readonly record: ScheduleRecord }
  | { readonly kind: "missing" }
  | { readonly kind: "invalid"; readonly reason: string };

export interface ScheduleStore {
  /** Writes a new schedule and lists it; false when the id is taken. */
  create(record: ScheduleRecord): Promise<boolean>;
  load(id: string): Promise<ScheduleLoad>;
  /**
   * Changes a schedule under its lock: `change` gets the stored record and returns the new one
   * (or undefined: no change). Resolves with the record as stored afterwards, undefined when
   * there is none that reads. An ended schedule leaves the lists.
   */
  update(id: string, change: (record: ScheduleRecord) => ScheduleRecord | undefined): Promise<ScheduleRecord | undefined>;
  /** Every schedule not ended (active or paused). */
  open(): Promise<ScheduleRecord[]>;
  /** Every active schedule's next slot, without reading the records (the start). */
  armed(): Promise<Array<{ readonly id: string; readonly at: number }>>;
  /** Forgets a listed slot whose schedule turned out missing or not active. */
  forgetArmed(id: string, at: number): Promise<void>;
  /** The owner's schedules not ended. */
  ownedBy(surface: Surface, ownerId: string): Promise<ScheduleRecord[]>;
  /** The channel's schedules not ended. */
  inChannel(surface: Surface, channel: string): Promise<ScheduleRecord[]>;
}

/** `upgrade`: a schedule stored before origins carried their scope gets it from its surface's codec as it is loaded. */
export function createScheduleStore(store: KeyValueStore, upgrade?: (origin: TaskOrigin) => TaskOrigin): ScheduleStore {
  const held = new Map<string, Promise<void>>();

  const load = async (id: string): Promise<ScheduleLoad> => {
    const raw = await store.get(recordKey(id));
    if (raw === undefined) return { kind: "missing" };
    const parsed = ScheduleRecordSchema.safeParse(raw);
    if (!parsed.success || parsed.data.id !== id) return { kind: "invalid", reason: "the stored schedule failed validation" };
    return { kind: "found", record: upgrade ? { ...parsed.data, origin: upgrade(parsed.data.origin) } : parsed.data };
  };

  const listed = async (set: string): Promise<ScheduleRecord[]> => {
    const ids = await store.setMembers(set);
    const loads = await Promise.all(ids.map(load));
    // A member without a record that reads (a crash between the two writes, or damage) is skipped.
    return loads.flatMap((found) => (found.kind === "found" && found.record.state !== "ended" ? [found.record] : []));
  };

  /** The store's lock, taken by polling (changes hold it for a few milliseconds). */
  async function storeLock(id: string): Promise<() => Promise<void>> {
    const token = `${process.pid}:${Math.random()}`;
    const deadline = Date.now() + LOCK_WAIT_MS;
    while (!(await store.setIfAbsent(lockKey(id), token, LOCK_TTL_MS))) {
      if (Date.now() > deadline) throw new Error(`schedule ${id} stayed locked for ${LOCK_WAIT_MS} ms`);
      await new Promise((resolve) => setTimeout(resolve, LOCK_RETRY_MS));
    }
    return async () => {
      if ((await store.get(lockKey(id))) === token) await store.delete(lockKey(id));
    };
  }

  /** One change per schedule at a time in this process (no polling), then the store's lock across processes. */
  function locked<T>(id: string, work: () => Promise<T>): Promise<T> {
    const run = (held.get(id) ?? Promise.resolve()).then(async () => {
      const release = await storeLock(id);
      try {
        return await work();
      } finally {
        await release();
      }
    });
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    held.set(id, settled);
    void settled.then(() => {
      if (held.get(id) === settled) held.delete(id);
    });
    return run;
  }

  const armedMember = (record: ScheduleRecord): string | undefined =>
    record.state === "active" && record.nextSlot !== undefined ? `${record.id} ${record.nextSlot}` : undefined;

  /** Lists the new slot before it unlists the old: a crash in between leaves an extra member, which only fires a no-op. */
  async function relist(before: ScheduleRecord, after: ScheduleRecord): Promise<void> {
    const [old, next] = [armedMember(before), armedMember(after)];
    if (old === next) return;
    if (next) await store.addToSet(ARMED_SET, next);
    if (old) await store.removeFromSet(ARMED_SET, old);
  }

  const lists = (record: ScheduleRecord) => [
    ownerSet(record.origin.surface, record.owner.id),
    channelSet(record.origin.surface, channelOf(record.origin)),
  ];

  return {
    async create(record) {
      // Listed by owner and channel first: a crash in between leaves a member without a record, which readers skip.
      for (const set of lists(record)) await store.addToSet(set, record.id);
      const armed = armedMember(record);
      if (armed) await store.addToSet(ARMED_SET, armed);
      return store.setIfAbsentListed({ key: recordKey(record.id), value: record }, { set: OPEN_SET, member: record.id });
    },
    load,
    update(id, change) {
      return locked(id, async () => {
        const found = await load(id);
        if (found.kind !== "found") return undefined;
        const next = change(found.record);
        if (!next) return found.record;
        if (next.state !== "ended") {
          await store.set(recordKey(id), next);
          await relist(found.record, next);
          return next;
        }
        await store.set(recordKey(id), next, ENDED_TTL_MS);
        await relist(found.record, next);
        await store.removeFromSet(OPEN_SET, id);
        for (const set of lists(next)) await store.removeFromSet(set, id);
        return next;
      });
    },
    open: () => listed(OPEN_SET),
    async armed() {
      const latest = new Map<string, number>();
      for (const member of await store.setMembers(ARMED_SET)) {
        const match = ARMED_MEMBER.exec(member);
        if (!match) continue;
        const at = Number(match[2]);
        // Two members for one schedule (a crash between listing its new slot and unlisting the old): the later is current.
        if (at > (latest.get(match[1]!) ?? Number.NEGATIVE_INFINITY)) latest.set(match[1]!, at);
      }
      return [...latest].map(([id, at]) => ({ id, at }));
    },
    forgetArmed: (id, at) => store.removeFromSet(ARMED_SET, `${id} ${at}`),
    ownedBy: (surface, ownerId) => listed(ownerSet(surface, ownerId)),
    inChannel: (surface, channel) => listed(channelSet(surface, channel)),
  };
}
