// Schedules for one process, put together: the book (make, list, cancel, pause, resume), the commands
// and the create_schedule tool built on it, the observer that learns how slot runs ended, and
// the firing of slots on the slot timer. Built before the runner (its tool and observer go into
// it), started with the runner's intake once the surfaces are attached.
import type { Surface, TaskOrigin, Tool } from "../contracts/types.js";
import type { ScheduleConfig } from "../config.js";
import type { RunPolicy } from "../governance/run-policy.js";
import type { Logger } from "../logger.js";
import type { KeyValueStore } from "../memory/types.js";
import type { SlotShow } from "../runs/api/presenting.js";
import type { RunObserver } from "../runs/worker/run-observer.js";
import { slotPresenter } from "./slot-presenter.js";
import type { SubmitResult, Task } from "../runs/api/task.js";
import { createScheduleCommands, type ScheduleCommand, type ScheduleCommandResult } from "./commands.js";
import { createScheduleTool } from "./create-schedule-tool.js";
import { NO_METRICS, type ScheduleSurfacePorts, type SlotMetrics, type SlotTimer } from "./ports.js";
import { createScheduleAudit } from "./schedule-audit.js";
import { createScheduleBook, type ScheduleBook } from "./schedule-book.js";
import { createScheduleStore } from "./schedule-store.js";
import { createSlotFiring } from "./slot-firing.js";
import { createSlotOutcomes } from "./slot-outcomes.js";

export interface SchedulesDeps {
  readonly store: KeyValueStore;
  readonly config: ScheduleConfig;
  readonly timer: SlotTimer;
  readonly logger: Logger;
  readonly clock?: () => number;
  /** Governance (settings file, audit log); none: every slot admitted, nothing audited. */
  readonly policy?: Pick<RunPolicy, "admit" | "runSettings" | "audit">;
  readonly metrics?: SlotMetrics;
  /** This machine's timezone, only ever suggested; default: the process's own. */
  readonly machineTimeZone?: string;
  /** A schedule stored before origins carried their scope gets it from its surface's codec when it is loaded. */
  readonly upgrade?: (origin: TaskOrigin) => TaskOrigin;
}

export interface Schedules {
  readonly book: ScheduleBook;
  /** The chat commands `schedule`, `schedules`, `unschedule`, `pause`, `resume`, for the surfaces' command table. */
  run(command: ScheduleCommand): Promise<ScheduleCommandResult>;
  /** create_schedule, for the runner's tools (offered to every run a schedule did not start). */
  readonly tool: Tool;
  /** For the runner's observers: how each slot's run ended (silent, failures in a row). */
  readonly observer: RunObserver;
  /** For the service: how a slot's run is shown (`[SILENT]` shows nothing, a late one says so). */
  readonly showSlot: SlotShow;
  /** What a surface knows about its people (timezone, presence) and how it tells an owner privately. */
  attachSurface(surface: Surface, ports: ScheduleSurfacePorts): void;
  /** Arms every active schedule from the store and starts firing into `submit` (AgentService.submit); resolves with how many. Call once. */
  start(submit: (task: Task, receipt: string) => Promise<SubmitResult>): Promise<{ readonly schedules: number }>;
  /** Stops firing and waits for fires and bookkeeping in flight. Does not close the store. */
  close(): Promise<void>;
  /** Resolves when the bookkeeping and audit entries started so far are written (shutdown, tests). */
  settled(): Promise<void>;
}

function processTimeZone(): string | undefined {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || undefined;
  } catch {
    return undefined;
  }
}

export function createSchedules(deps: SchedulesDeps): Schedules {
  const { config, timer, logger } = deps;
  const clock = deps.clock ?? Date.now;
  const metrics = deps.metrics ?? NO_METRICS;
  const store = createScheduleStore(deps.store, deps.upgrade);
  const audit = createScheduleAudit(deps.policy?.audit, logger);
  const surfaces = new Map<Surface, ScheduleSurfacePorts>();
  const portsOf = (origin: TaskOrigin): ScheduleSurfacePorts => surfaces.get(origin.surface) ?? {};
  const machineTimeZone = deps.machineTimeZone ?? processTimeZone();
  const book = createScheduleBook({
    store,
    timer,
    config,
    audit,
    logger,
    clock,
    ...(deps.policy ? { policy: deps.policy } : {}),
    ...(machineTimeZone ? { machineTimeZone } : {}),
  });
  const timeZoneOf = async (origin: TaskOrigin, person = origin.requester) =>
    portsOf(origin)
      .timeZoneOf?.(person, origin)
      .catch(() => undefined);
  const outcomes = createSlotOutcomes({ store, book, audit, metrics, logger, portsOf });
  let started = false;

  return {
    book,
    run: createScheduleCommands({ book, timeZoneOf: (person, origin) => timeZoneOf(origin, person) }),
    tool: createScheduleTool(book, (origin) => timeZoneOf(origin)),
    observer: outcomes,
    showSlot: slotPresenter,
    attachSurface(surface, ports) {
      surfaces.set(surface, ports);
    },
    async start(submit) {
      if (started) throw new Error("schedules were already started");
      started = true;
      const armed = await store.armed();
      await timer.restore(armed);
      timer.start(
        createSlotFiring({
          store,
          book,
          timer,
          config,
          audit,
          metrics,
          logger,
          clock,
          portsOf,
          submit,
          ...(deps.policy ? { policy: deps.policy } : {}),
        }),
      );
      logger.info({ armed: armed.length }, "schedules armed");
      return { schedules: armed.length };
    },
    async close() {
      await timer.close();
      await outcomes.settled();
      await audit.settled();
    },
    async settled() {
      await outcomes.settled();
      await audit.settled();
    },
  };
}
