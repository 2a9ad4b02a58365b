// The limits a new schedule meets in its channel: the SCHEDULE_* variables, overridden field by
// field by the channel's `schedules` entry in the settings file. Pure: each refusal is one line.
import type { ScheduleConfig } from "../config.js";
import type { ScheduleOverrides } from "../governance/settings-schema.js";
import { shortestGapMs, type When } from "./slots.js";

export interface ScheduleLimits {
  readonly enabled: boolean;
  readonly maxPerUser: number;
  readonly maxPerChannel: number;
  readonly minIntervalMinutes: number;
}

export function limitsHere(config: ScheduleConfig, overrides: ScheduleOverrides | undefined): ScheduleLimits {
  return {
    enabled: overrides?.enabled ?? true,
    maxPerUser: overrides?.maxPerUser ?? config.maxPerUser,
    maxPerChannel: overrides?.maxPerChannel ?? config.maxPerChannel,
    minIntervalMinutes: overrides?.minIntervalMinutes ?? config.minIntervalMinutes,
  };
}

const MINUTE_MS = 60_000;
const schedules = (count: number) => `${count} schedule${count === 1 ? "" : "s"}`;

function duration(ms: number): string {
  const minutes = Math.round(ms / MINUTE_MS);
  if (minutes % 60 !== 0 || minutes === 0) return `${minutes} minute${minutes === 1 ? "" : "s"}`;
  const hours = minutes / 60;
  return `${hours} hour${hours === 1 ? "" : "s"}`;
}

/** Why this schedule can't be made here, or undefined. `owned` and `inChannel` count schedules not ended. */
export function creationRefusal(options: {
  readonly limits: ScheduleLimits;
  readonly when: When;
  readonly owned: number;
  readonly inChannel: number;
  readonly now: number;
}): string | undefined {
  const { limits, when, now } = options;
  if (!limits.enabled) return "Schedules are turned off in this channel (the bot's settings).";
  if (when.kind === "cron") {
    const gap = shortestGapMs(when, now);
    if (gap !== undefined && gap < limits.minIntervalMinutes * MINUTE_MS)
      return `\`${when.phrase}\` would run every ${duration(gap)}; the shortest interval allowed here is ${duration(limits.minIntervalMinutes * MINUTE_MS)}.`;
  }
  if (options.owned >= limits.maxPerUser)
    return `You have ${schedules(options.owned)} already, the most allowed here (${limits.maxPerUser}); cancel one with \`unschedule <id>\` first.`;
  if (options.inChannel >= limits.maxPerChannel)
    return `This channel has ${schedules(options.inChannel)} already, the most allowed here (${limits.maxPerChannel}).`;
  return undefined;
}
