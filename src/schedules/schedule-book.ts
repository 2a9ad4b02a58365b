// What a person (or the model, through create_schedule) can do with schedules: make one, list,
// cancel, resume, and the bot's own pause. Each returns a typed result; the words are in
// schedule-text.ts. Who may do what is decided by the caller's `isAdmin` (the surfaces' authority).
import type { Person, Surface, TaskOrigin } from "../contracts/types.js";
import type { ScheduleConfig } from "../config.js";
import type { RunPolicy } from "../governance/run-policy.js";
import type { Logger } from "../logger.js";
import type { ScheduleAudit } from "./schedule-audit.js";
import { creationRefusal, limitsHere } from "./schedule-limits.js";
import { channelOf, newScheduleId, ownerName, type ScheduleRecord } from "./schedule-record.js";
import type { ScheduleStore } from "./schedule-store.js";
import { nextSlots, slotAfter } from "./slots.js";
import type { SlotTimer } from "./ports.js";
import { parseWhen } from "./when-phrase.js";
import { resolveWhen } from "./when-resolve.js";

export interface ScheduleCaller {
  readonly person: Person;
  /** Where the caller is: a new schedule's runs go to this channel. */
  readonly origin: TaskOrigin;
  readonly isAdmin: boolean;
  /** `origin`: results in the caller's thread; default: a thread per slot. */
  readonly thread?: "per_slot" | "origin";
}

export interface CreateRequest {
  readonly caller: ScheduleCaller;
  readonly when: string;
  readonly what: string;
  readonly via: "command" | "tool";
  /** The caller's own timezone from their chat profile (asked only when the phrase names none). */
  readonly personTimeZone?: () => Promise<string | undefined>;
}

export type CreateResult =
  | { readonly kind: "created"; readonly schedule: ScheduleRecord; readonly next: readonly number[] }
  | { readonly kind: "refused"; readonly text: string };

export type ChangeResult =
  | { readonly kind: "changed"; readonly schedule: ScheduleRecord; readonly next: readonly number[] }
  | { readonly kind: "not_found"; readonly id: string }
  | { readonly kind: "not_allowed"; readonly schedule: ScheduleRecord }
  /** Already ended, or (resume) not paused, or (pause) paused already, or a one-shot whose time passed while paused. */
  | { readonly kind: "unchanged"; readonly schedule: ScheduleRecord; readonly why: "ended" | "not_paused" | "paused" | "passed" };

export interface ScheduleBook {
  create(request: CreateRequest): Promise<CreateResult>;
  /** The caller's schedules; an admin's `all` lists everyone's. */
  list(caller: ScheduleCaller, all: boolean): Promise<readonly ScheduleRecord[]>;
  cancel(id: string, caller: ScheduleCaller): Promise<ChangeResult>;
  /** Stops firing until resumed; the schedule still counts against the limits. */
  pause(id: string, caller: ScheduleCaller): Promise<ChangeResult>;
  resume(id: string, caller: ScheduleCaller): Promise<ChangeResult>;
  /** The bot pauses a schedule (failures in a row, a blocked or departed owner); resolves with it when this call paused it. */
  pauseForBot(id: string, reason: string): Promise<ScheduleRecord | undefined>;
  /** The workspace (or server) removed the bot: each of its schedules still open ends, unaudited (the removal is one line). How many ended. */
  endInWorkspace(surface: Surface, workspace: string, reason: string): Promise<number>;
}

export interface ScheduleBookDeps {
  readonly store: ScheduleStore;
  readonly timer: SlotTimer;
  readonly config: ScheduleConfig;
  readonly audit: ScheduleAudit;
  readonly logger: Logger;
  readonly clock: () => number;
  readonly policy?: Pick<RunPolicy, "runSettings">;
  /** This machine's timezone: only suggested when a phrase names none. */
  readonly machineTimeZone?: string;
}

const ID_TRIES = 5;

export function createScheduleBook(deps: ScheduleBookDeps): ScheduleBook {
  const { store, timer, config, audit, clock, logger } = deps;
  // A slot that fires anyway finds its schedule not active and does nothing; forgetting it is only tidiness.
  const disarm = (id: string, at: number) =>
    timer.disarm(id, at).catch((error: unknown) => logger.warn({ err: error, scheduleId: id }, "could not forget a schedule's next slot"));

  /** Loads and checks the caller may change it; the change itself runs under the store's lock. */
  async function change(
    id: string,
    caller: ScheduleCaller,
    apply: (record: ScheduleRecord, now: number) => ScheduleRecord | ChangeResult,
  ): Promise<ChangeResult> {
    const found = await store.load(id);
    if (found.kind !== "found") return { kind: "not_found", id };
    if (found.record.owner.id !== caller.person.id || found.record.origin.surface !== caller.origin.surface) {
      if (!caller.isAdmin) return { kind: "not_allowed", schedule: found.record };
    }
    let result: ChangeResult | undefined;
    const stored = await store.update(id, (current) => {
      const applied = apply(current, clock());
      if ("kind" in applied) {
        result = applied;
        return undefined;
      }
      return applied;
    });
    if (result) return result;
    if (!stored) return { kind: "not_found", id };
    return { kind: "changed", schedule: stored, next: stored.state === "active" ? nextSlots(stored.when, clock(), 3) : [] };
  }

  return {
    async create(request) {
      const { caller } = request;
      const parsed = parseWhen(request.when);
      if (parsed.kind === "invalid") return { kind: "refused", text: `${parsed.problem}.`.replace(/\.\.$/, ".") };
      const person = parsed.when.timeZone === undefined ? await request.personTimeZone?.().catch(() => undefined) : undefined;
      const now = clock();
      const resolved = resolveWhen(
        parsed.when,
        {
          ...(person ? { person } : {}),
          ...(config.defaultTimeZone ? { configured: config.defaultTimeZone } : {}),
          ...(deps.machineTimeZone ? { machine: deps.machineTimeZone } : {}),
        },
        now,
      );
      if (resolved.kind === "refused") return resolved;
      const { when } = resolved;
      const [owned, inChannel] = await Promise.all([
        store.ownedBy(caller.origin.surface, caller.person.id),
        store.inChannel(caller.origin.surface, channelOf(caller.origin)),
      ]);
      const refusal = creationRefusal({
        limits: limitsHere(config, deps.policy?.runSettings(caller.origin).schedules),
        when,
        owned: owned.length,
        inChannel: inChannel.length,
        now,
      });
      if (refusal) return { kind: "refused", text: refusal };
      const first = slotAfter(when, now);
      if (first === undefined) return { kind: "refused", text: `\`${when.phrase}\` never comes.` };
      // Where it was made, as its owner; never the marker of a scheduled run (such runs are not offered the tool anyway).
      const { schedule: _slot, ...where } = caller.origin;
      const origin: TaskOrigin = { ...where, requester: caller.person };
      for (let attempt = 0; attempt < ID_TRIES; attempt++) {
        const schedule: ScheduleRecord = {
          version: 1,
          id: newScheduleId(),
          owner: caller.person,
          origin,
          thread: caller.thread ?? "per_slot",
          what: request.what,
          when,
          state: "active",
          failureStreak: 0,
          skippedSlots: 0,
          createdAt: now,
          changedAt: now,
          createdVia: request.via,
          nextSlot: first,
        };
        if (!(await store.create(schedule))) continue;
        await timer.arm(schedule.id, first);
        audit.record("schedule_created", schedule, { by: caller.person, reason: `${request.via}: ${when.phrase}` });
        return { kind: "created", schedule, next: nextSlots(when, now, 3) };
      }
      throw new Error(`could not find a free schedule id in ${ID_TRIES} tries`);
    },

    async list(caller, all) {
      const schedules = all && caller.isAdmin ? await store.open() : await store.ownedBy(caller.origin.surface, caller.person.id);
      return [...schedules].sort((a, b) => a.createdAt - b.createdAt);
    },

    async cancel(id, caller) {
      let armed: number | undefined;
      const result = await change(id, caller, (record, now) => {
        if (record.state === "ended") return { kind: "unchanged", schedule: record, why: "ended" };
        armed = record.nextSlot;
        return { ...record, state: "ended", reason: `cancelled by ${ownerName(caller.person)}`, nextSlot: undefined, changedAt: now };
      });
      if (result.kind === "changed") {
        if (armed !== undefined) await disarm(id, armed);
        audit.record("schedule_cancelled", result.schedule, { by: caller.person });
      }
      return result;
    },

    async pause(id, caller) {
      let armed: number | undefined;
      const result = await change(id, caller, (record, now) => {
        if (record.state !== "active") return { kind: "unchanged", schedule: record, why: record.state === "ended" ? "ended" : "paused" };
        armed = record.nextSlot;
        return { ...record, state: "paused", reason: `paused by ${ownerName(caller.person)}`, nextSlot: undefined, changedAt: now };
      });
      if (result.kind === "changed") {
        if (armed !== undefined) await disarm(id, armed);
        audit.record("schedule_paused", result.schedule, { by: caller.person });
      }
      return result;
    },

    async resume(id, caller) {
      const result = await change(id, caller, (record, now) => {
        if (record.state === "ended") return { kind: "unchanged", schedule: record, why: "ended" };
        if (record.state !== "paused") return { kind: "unchanged", schedule: record, why: "not_paused" };
        const next = slotAfter(record.when, now);
        if (next === undefined) return { kind: "unchanged", schedule: record, why: "passed" };
        return { ...record, state: "active", reason: undefined, failureStreak: 0, nextSlot: next, changedAt: now };
      });
      if (result.kind === "changed" && result.schedule.nextSlot !== undefined) {
        await timer.arm(id, result.schedule.nextSlot);
        audit.record("schedule_resumed", result.schedule, { by: caller.person });
      }
      return result;
    },

    async endInWorkspace(surface, workspace, reason) {
      const theirs = (await store.open()).filter(
        (record) => record.origin.surface === surface && record.origin.scope?.workspace === workspace,
      );
      let ended = 0;
      for (const { id } of theirs) {
        let armed: number | undefined;
        let endedHere = false;
        await store.update(id, (record) => {
          if (record.state === "ended") return undefined;
          armed = record.nextSlot;
          endedHere = true;
          return { ...record, state: "ended", reason, nextSlot: undefined, changedAt: clock() };
        });
        if (!endedHere) continue;
        ended += 1;
        if (armed !== undefined) await disarm(id, armed);
      }
      return ended;
    },

    async pauseForBot(id, reason) {
      let armed: number | undefined;
      let paused = false;
      const stored = await store.update(id, (record) => {
        if (record.state !== "active") return undefined;
        paused = true;
        armed = record.nextSlot;
        return { ...record, state: "paused", reason, nextSlot: undefined, changedAt: clock() };
      });
      if (!paused || !stored) return undefined;
      if (armed !== undefined) await disarm(id, armed);
      audit.record("schedule_paused", stored, { reason });
      return stored;
    },
  };
}
