// Schedules in a surface harness, as app.ts builds them for one process on SQLite: the book and
// commands on the harness's store, the in-process slot timer on a clock the test may move (only
// schedules read it: the platforms' signatures and the runs keep real time), governance at fire
// time, the tool and the observer for the runner. `startFiring` goes after the service starts.
import type { Config } from "../../src/config.js";
import type { Governance } from "../../src/governance/governance.js";
import type { Logger } from "../../src/logger.js";
import type { KeyValueStore } from "../../src/memory/types.js";
import type { RunningAgentService } from "../../src/runs/service/create-agent-service.js";
import { createLocalSlotTimer, type LocalSlotTimer, realTimerClock, type TimerClock } from "../../src/schedules/local-slot-timer.js";
import { createSchedules, type Schedules } from "../../src/schedules/scheduler.js";

export interface HarnessSchedules {
  readonly schedules: Schedules;
  /** Resolves when every fire in flight and its bookkeeping are done. */
  settle(): Promise<void>;
}

/** A harness's schedules when its options ask for them (`requested`), on the clock they name; none otherwise. */
export function harnessSchedules(
  requested: { readonly clock?: TimerClock } | undefined,
  options: {
    readonly config: Config;
    readonly store: KeyValueStore;
    readonly logger: Logger;
    readonly governance: Governance;
  },
): (HarnessSchedules & { readonly timer: LocalSlotTimer }) | undefined {
  if (!requested) return undefined;
  const clock = requested.clock ?? realTimerClock;
  const timer = createLocalSlotTimer(options.logger, clock);
  const schedules = createSchedules({
    store: options.store,
    config: options.config.schedules,
    timer,
    logger: options.logger,
    clock: () => clock.now(),
    policy: options.governance.runPolicy,
    machineTimeZone: "Europe/Lisbon",
  });
  return {
    schedules,
    timer,
    async settle() {
      await timer.idle();
      await schedules.settled();
    },
  };
}

/** Fires slots into the service, as app.ts does once the service started. */
export const startFiring = (schedules: Schedules, service: RunningAgentService) =>
  schedules.start((task, receipt) => service.submit(task, receipt));
