// What schedules need from outside their room, as small seams: the timer that fires slots (one
// in-process timer, or BullMQ delayed jobs), what a chat surface knows (a person's timezone,
// whether the owner is still there, how to tell them privately), and the metrics.
import type { Person, TaskOrigin } from "../contracts/types.js";
import type { ScheduleRecord } from "./schedule-record.js";

export interface SlotTimer {
  /** Fires `fire(id, at)` at `at` (at once when past). Idempotent per (id, at), across processes where it is shared. */
  arm(id: string, at: number): Promise<void>;
  /**
   * The start: every active schedule's slot as the store lists it. A timer in this process arms
   * them all; a shared one (its jobs outlive processes) only makes sure none is missing, in the
   * background. Resolves once the slots can fire.
   */
  restore(entries: ReadonlyArray<{ readonly id: string; readonly at: number }>): Promise<void>;
  /** Forgets the slot armed for `id` at `at` (cancel, pause); a fire that comes anyway finds the schedule not active. */
  disarm(id: string, at: number): Promise<void>;
  /** Starts firing; `fire` must settle. A rejection fires the slot again later. Called once. */
  start(fire: (id: string, at: number) => Promise<void>): void;
  /** Stops firing and waits for fires in flight. */
  close(): Promise<void>;
}

export type Presence =
  /** `roles`: the owner's roles where the platform has them (Discord), for access lists at fire time. */
  | { readonly kind: "present"; readonly roles?: readonly string[] }
  /** The owner left the workspace or server, or the bot is no longer in the channel. */
  | { readonly kind: "gone"; readonly reason: string };

/** What one chat surface tells schedules; every part is optional (none: assume present, no timezone, log the notice). */
export interface ScheduleSurfacePorts {
  /** The person's own timezone (Slack users.info `tz`). Must not throw (unknown: undefined). */
  timeZoneOf?(person: Person, origin: TaskOrigin): Promise<string | undefined>;
  /** Asked at fire time, before the slot runs. Must not throw (unknown: present). */
  presence?(schedule: ScheduleRecord): Promise<Presence>;
  /** Tells the owner privately (a DM, an ephemeral message): the schedule paused, and why. Must not throw. */
  notifyOwner?(schedule: ScheduleRecord, text: string): Promise<void>;
}

export type SlotOutcome = "on_time" | "late" | "skipped" | "refused";
export type SlotRunEnd = "answered" | "silent" | "failed";

export interface SlotMetrics {
  slot(outcome: SlotOutcome, count?: number): void;
  runEnded(outcome: SlotRunEnd): void;
}

export const NO_METRICS: SlotMetrics = { slot: () => {}, runEnded: () => {} };
