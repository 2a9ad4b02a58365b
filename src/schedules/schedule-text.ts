// Every sentence schedules say, as pure functions: the replies to the commands (surfaces only
// render them), the note on a late run, the owner's private notices, and the task text the
// slot's run gets. Each schedule is named by its id in every reply about it.
import type { ScheduledSlot } from "../contracts/types.js";
import { channelOf, ownerName, type ScheduleRecord } from "./schedule-record.js";
import type { When } from "./slots.js";
import { clockText, slotText } from "./wall-clock.js";

export const USAGE =
  "Usage: `schedule <when>: <what>`, e.g. `schedule every weekday at 9:00 Europe/Berlin: summarise #releases` or `schedule cron 0 9 * * 1-5 UTC: post the open incidents`. Also `schedules`, `unschedule <id>`, `pause <id>`, `resume <id>`.";

/** The answer that means "nothing to report": nothing is posted and the slot is recorded silent. */
export const SILENT = "[SILENT]";

export function isSilentAnswer(answer: string): boolean {
  return answer.trim() === SILENT;
}

/** Times are shown in the schedule's timezone; a one-shot made without one shows UTC. */
const zoneOf = (when: When) => when.timeZone ?? "UTC";

export function nextTimesText(when: When, next: readonly number[]): string {
  if (next.length === 0) return "no more runs";
  return next.map((at) => slotText(at, zoneOf(when))).join(", ");
}

export const WHERE_THREAD = "Results will be posted in this thread.";
export const WHERE_CHANNEL = "Results will be posted in this channel, each run in a thread of its own.";

export function whereText(schedule: ScheduleRecord): string {
  return schedule.thread === "origin" ? WHERE_THREAD : WHERE_CHANNEL;
}

function stateText(schedule: ScheduleRecord): string {
  if (schedule.state === "active") return "active";
  return schedule.reason ? `${schedule.state} (${schedule.reason})` : schedule.state;
}

export function createdText(schedule: ScheduleRecord, next: readonly number[]): string {
  const times = next.length === 1 ? `It runs at ${nextTimesText(schedule.when, next)}` : `Next: ${nextTimesText(schedule.when, next)}`;
  return `Scheduled ${schedule.id}: \`${schedule.when.phrase}\`. ${times}. ${whereText(schedule)} Cancel with \`unschedule ${schedule.id}\`.`;
}

/** One line per schedule; `all` (an admin's listing) adds each one's owner and channel. */
export function listText(schedules: readonly ScheduleRecord[], all: boolean): string {
  if (schedules.length === 0) return all ? "There are no schedules." : "You have no schedules. Make one with `schedule <when>: <what>`.";
  const lines = schedules.map((schedule) => {
    const who = all ? ` · owner ${ownerName(schedule.owner)} · channel ${channelOf(schedule.origin)}` : "";
    const next =
      schedule.state === "active" && schedule.nextSlot !== undefined ? ` · next ${nextTimesText(schedule.when, [schedule.nextSlot])}` : "";
    return `• ${schedule.id} · \`${schedule.when.phrase}\` · ${stateText(schedule)}${next}${who} · ${preview(schedule.what)}`;
  });
  const title = all ? `All ${schedules.length} schedules:` : `Your ${schedules.length} schedule${schedules.length === 1 ? "" : "s"}:`;
  return [title, ...lines].join("\n");
}

function preview(what: string): string {
  const flat = what.replace(/\s+/g, " ");
  return flat.length > 80 ? `${flat.slice(0, 79)}…` : flat;
}

export const cancelledText = (schedule: ScheduleRecord) => `Cancelled ${schedule.id}: \`${schedule.when.phrase}\` runs no more.`;

export const pausedText = (schedule: ScheduleRecord) =>
  `Paused ${schedule.id}: \`${schedule.when.phrase}\` runs no more until \`resume ${schedule.id}\`.`;

export const pausedAlreadyText = (schedule: ScheduleRecord) =>
  `${schedule.id} is paused already; \`resume ${schedule.id}\` starts it again.`;

export const resumedText = (schedule: ScheduleRecord, next: readonly number[]) =>
  `Resumed ${schedule.id}: next ${nextTimesText(schedule.when, next)}. ${whereText(schedule)}`;

export const notFoundText = (id: string) => `There is no schedule ${id}. \`schedules\` lists yours.`;

export const notAllowedText = (schedule: ScheduleRecord) =>
  `${schedule.id} belongs to ${ownerName(schedule.owner)}; only they or an admin can change it.`;

export const endedText = (schedule: ScheduleRecord) => `${schedule.id} has ended already${schedule.reason ? ` (${schedule.reason})` : ""}.`;

export const notPausedText = (schedule: ScheduleRecord) => `${schedule.id} is ${stateText(schedule)}, not paused.`;

export const passedText = (schedule: ScheduleRecord) => `${schedule.id} can't resume: its one time has passed. Make a new one.`;

/** What the owner is told privately when the bot pauses their schedule. */
export const pausedNotice = (schedule: ScheduleRecord, reason: string) =>
  `Your schedule ${schedule.id} (\`${schedule.when.phrase}\`: ${preview(schedule.what)}) is paused: ${reason}. Resume it with \`resume ${schedule.id}\`.`;

/** Said in the schedule's channel when its owner can't be told privately (Discord lets no DM reach someone who left). */
export const pausedChannelNotice = (schedule: ScheduleRecord) =>
  `Schedule ${schedule.id} of ${ownerName(schedule.owner)} (\`${schedule.when.phrase}\`: ${preview(schedule.what)}) is paused${schedule.reason ? `: ${schedule.reason}` : ""}. Its owner could not be told privately; they or an admin can \`resume ${schedule.id}\` or \`unschedule ${schedule.id}\`.`;

/** `(late: due 09:00, ran 09:42)`, plus how many older slots were skipped. */
export function lateNote(slot: ScheduledSlot): string {
  const zone = slot.timeZone ?? "UTC";
  const skipped = slot.skipped ? `; ${slot.skipped} earlier slot${slot.skipped === 1 ? "" : "s"} skipped` : "";
  return `(late: due ${clockText(slot.slotAt, zone, slot.firedAt)}, ran ${clockText(slot.firedAt, zone, slot.slotAt)}${skipped})`;
}

/** The slot run's question: the owner's task, and what a scheduled run may answer. */
export function slotTaskText(schedule: ScheduleRecord, slotAt: number): string {
  return [
    schedule.what,
    "",
    `(This run was started by schedule ${schedule.id} of ${ownerName(schedule.owner)}, for ${slotText(slotAt, zoneOf(schedule.when))}; nobody is waiting for it live. If there is nothing worth reporting, answer exactly ${SILENT} and nothing will be posted.)`,
  ].join("\n");
}
