// One process of a surface harness (Slack's, Discord's), wired as app.ts wires a bot: governance
// over the harness's settings, schedules when the test asks for them, the real AgentService on the
// harness's store, and the surface attached under the core; then its shutdown in the app's order.
// What a harness keeps for itself is its platform: the fake, the surface, the port, the store's life.
import { attach, type AttachedSurface } from "../../src/adapters/core/attach.js";
import type { SurfaceCore } from "../../src/adapters/core/inbound.js";
import type { ChatSurface } from "../../src/adapters/core/surface.js";
import type { Config } from "../../src/config.js";
import type { Model, Tool } from "../../src/contracts/types.js";
import { approversFrom } from "../../src/governance/authority.js";
import { createGovernance, type Governance } from "../../src/governance/governance.js";
import type { SettingsSource } from "../../src/governance/settings-source.js";
import type { Logger } from "../../src/logger.js";
import type { KeyValueStore } from "../../src/memory/types.js";
import { createLocalWorkQueue } from "../../src/runs/queue/local-work-queue.js";
import type { WorkQueue } from "../../src/runs/queue/work-queue.js";
import { createAgentService, type RunningAgentService } from "../../src/runs/service/create-agent-service.js";
import type { TimerClock } from "../../src/schedules/local-slot-timer.js";
import { connectDeps, type HarnessConnect } from "./connect-stand-in.js";
import { harnessSchedules, startFiring, type HarnessSchedules } from "./harness-schedules.js";

/** What a surface harness's options say about the runs, alike on every platform. */
export interface HarnessRunsOptions {
  readonly clock?: () => number;
  /** Puts a fault between the service and its (in-process) work queue. */
  readonly wrapQueue?: (queue: WorkQueue) => WorkQueue;
  /** Tools that act as the person and the Connect links of their pauses. */
  readonly connect?: HarnessConnect;
  /** Tools that come and go (an MCP manager's), as app.ts hands them to the service. */
  readonly toolSource?: () => readonly Tool[];
  /** Schedules as app.ts wires them; `clock` is what only they read (a test moves it to fire slots). */
  readonly schedules?: { readonly clock?: TimerClock };
}

export interface BootedSurface<Clicked> {
  readonly service: RunningAgentService;
  readonly attached: AttachedSurface;
  readonly governance: Governance;
  readonly scheduling: HarnessSchedules | undefined;
  /** The core's flows, as the surface hands events to them. */
  readonly core: SurfaceCore<Clicked>;
  /** Stops taking events; what was taken gets the harness's grace to finish. */
  stop(): Promise<void>;
  /** No new events, the runs reach their checkpoint and post, then the client and governance close (the store stays open). */
  shutdown(): Promise<void>;
}

export async function bootSurface<Clicked, Ref>(parts: {
  readonly config: Config;
  readonly store: KeyValueStore;
  readonly model: Model;
  readonly settings: SettingsSource;
  /** The core's log (the surface logs to its own, given when the harness created it). */
  readonly logger: Logger;
  /** Governance's, the schedules' and the service's log (default: `logger`). */
  readonly runsLogger?: Logger;
  readonly options: HarnessRunsOptions;
  /** Made once governance and the service exist (its port, if any, is the harness's). */
  readonly surface: ChatSurface<Clicked, Ref>;
  readonly stopGraceMs: number;
  /** How long the shutdown lets the runs reach their checkpoint (default: the service's own). */
  readonly serviceCloseMs?: number;
}): Promise<BootedSurface<Clicked>> {
  const { config, store, options, logger } = parts;
  const runsLogger = parts.runsLogger ?? logger;
  const clock = options.clock ? { clock: options.clock } : {};
  const governance = createGovernance({
    source: parts.settings,
    store,
    logger: runsLogger,
    model: config.model.name,
    maxSteps: config.guards.maxSteps,
    approvers: approversFrom(config),
    ...clock,
  });
  const scheduling = harnessSchedules(options.schedules, { config, store, logger: runsLogger, governance });
  const service = createAgentService({
    config,
    model: parts.model,
    store,
    logger: runsLogger,
    ...clock,
    runPolicy: governance.runPolicy,
    authority: governance.authority,
    ...(scheduling
      ? { observers: [scheduling.schedules.observer], tools: [scheduling.schedules.tool], showSlot: scheduling.schedules.showSlot }
      : {}),
    ...(options.wrapQueue ? { queue: options.wrapQueue(createLocalWorkQueue(runsLogger)) } : {}),
    ...connectDeps(options.connect, scheduling ? [scheduling.schedules.tool] : []),
    ...(options.toolSource ? { toolSource: options.toolSource } : {}),
  });
  let core: SurfaceCore<Clicked> | undefined;
  // The surface as it is (its getters included), but for start, which hands the test the core's flows.
  const watched: ChatSurface<Clicked, Ref> = Object.create(parts.surface, {
    start: {
      value: (flows: SurfaceCore<Clicked>) => {
        core = flows;
        return parts.surface.start(flows);
      },
    },
  });
  const attached = attach(watched, {
    service,
    governance,
    store,
    logger,
    ...clock,
    ...(scheduling ? { schedules: scheduling.schedules } : {}),
  });
  await attached.start();
  await service.start();
  if (scheduling) await startFiring(scheduling.schedules, service);
  const stop = () => attached.stopIntake(parts.stopGraceMs);
  return {
    service,
    attached,
    governance,
    scheduling,
    core: core!,
    stop,
    async shutdown() {
      await stop();
      await scheduling?.schedules.close();
      await service.close(parts.serviceCloseMs);
      await attached.close();
      await governance.close();
    },
  };
}
