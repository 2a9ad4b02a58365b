// Audit entries of schedules: their life (made, changed, paused, resumed, cancelled) and every
// slot that did not simply run on time (late, skipped, silent, refused), with who and when.
// Appended through the audit queue (governance/audit-queue.ts): in order, in the background.
import type { Person } from "../contracts/types.js";
import type { AuditEntry, AuditLog } from "../governance/audit-log.js";
import { createAuditQueue } from "../governance/audit-queue.js";
import type { Logger } from "../logger.js";
import type { ScheduleRecord } from "./schedule-record.js";

export type ScheduleAuditKind = Extract<AuditEntry["kind"], `schedule_${string}` | `slot_${string}`>;

export interface ScheduleAuditDetail {
  /** The slot's run, when it had one; else the entry is filed under the schedule's id. */
  readonly runId?: string;
  readonly slotAt?: number;
  readonly firedAt?: number;
  readonly skipped?: number;
  /** Who acted; none: the bot did (a fire-time check, failures in a row). */
  readonly by?: Person;
  readonly reason?: string;
}

export interface ScheduleAudit {
  record(kind: ScheduleAuditKind, schedule: ScheduleRecord, detail?: ScheduleAuditDetail): void;
  /** Resolves when every entry recorded so far is written (tests, shutdown). */
  settled(): Promise<void>;
}

export function createScheduleAudit(log: AuditLog | undefined, logger: Logger): ScheduleAudit {
  const queue = log ? createAuditQueue(log, logger) : undefined;
  return {
    record(kind, schedule, detail = {}) {
      const { runId, ...rest } = detail;
      const defined = Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined));
      logger.info({ scheduleId: schedule.id, audit: kind, ...defined }, "schedule audit");
      queue?.append({
        kind,
        runId: runId ?? schedule.id,
        conversationKey: schedule.origin.conversationKey,
        surface: schedule.origin.surface,
        place: { ...schedule.origin.place },
        ...(schedule.origin.scope?.link ? { link: schedule.origin.scope.link } : {}),
        requester: schedule.owner,
        schedule: { id: schedule.id, ...defined },
      });
    },
    settled: async () => queue?.settled(),
  };
}
