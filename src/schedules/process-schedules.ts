// Schedules as app.ts builds them for one process: on Redis the slots are BullMQ delayed jobs
// shared by every process (loaded only then), otherwise one in-process timer.
import type { TaskOrigin } from "../contracts/types.js";
import type { ScheduleConfig } from "../config.js";
import type { RunPolicy } from "../governance/run-policy.js";
import type { Logger } from "../logger.js";
import type { KeyValueStore } from "../memory/types.js";
import { createLocalSlotTimer } from "./local-slot-timer.js";
import type { SlotMetrics, SlotTimer } from "./ports.js";
import { createSchedules, type Schedules } from "./scheduler.js";

export async function createProcessSchedules(options: {
  readonly config: ScheduleConfig;
  readonly store: KeyValueStore;
  readonly logger: Logger;
  /** Set when several processes share the store (and the slots) on Redis. */
  readonly redisUrl?: string;
  readonly policy?: Pick<RunPolicy, "admit" | "runSettings" | "audit">;
  readonly metrics?: SlotMetrics;
  readonly upgrade?: (origin: TaskOrigin) => TaskOrigin;
}): Promise<Schedules> {
  const { logger } = options;
  const timer: SlotTimer = options.redisUrl
    ? (await import("./bullmq-slot-timer.js")).createBullmqSlotTimer({ redisUrl: options.redisUrl, logger })
    : createLocalSlotTimer(logger);
  return createSchedules({
    store: options.store,
    config: options.config,
    timer,
    logger,
    ...(options.policy ? { policy: options.policy } : {}),
    ...(options.metrics ? { metrics: options.metrics } : {}),
    ...(options.upgrade ? { upgrade: options.upgrade } : {}),
  });
}
