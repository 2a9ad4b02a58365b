// A bot process's schedules on a real store and a real AgentService (scripted model), with a
// clock the test moves: the slot timer, intake, governance and the audit log all read it. A
// test presenter stands in for the surfaces and records what each run showed; owner notices
// and presence are ports the test plays. And the life of the bots one test file starts (a
// temporary folder, a fresh SQLite store each unless told otherwise, every bot closed after its
// test), with the steps the schedule tests share.
import { afterAll, afterEach, beforeAll } from "vitest";
import type { ScriptedModel } from "./model-scripted.js";
import type { RunOutcome, TaskOrigin, Tool } from "../../src/contracts/types.js";
import type { NoteLink } from "../../src/runs/api/presenting.js";
import { loadConfig, type Config } from "../../src/config.js";
import { createAuditLog } from "../../src/governance/audit-log.js";
import type { ScheduleCommandResult } from "../../src/schedules/commands.js";
import { createRunPolicy, type RunPolicy } from "../../src/governance/run-policy.js";
import { OPEN_SETTINGS, type Settings } from "../../src/governance/settings-schema.js";
import { silentLogger } from "../../src/logger.js";
import { openStore } from "../../src/memory/keyv-store.js";
import type { KeyValueStore } from "../../src/memory/types.js";
import { createAgentService, type RunningAgentService } from "../../src/runs/service/create-agent-service.js";
import { createLocalSlotTimer, type LocalSlotTimer, type TimerClock } from "../../src/schedules/local-slot-timer.js";
import type { Presence, SlotMetrics, SlotTimer } from "../../src/schedules/ports.js";
import type { ScheduleRecord } from "../../src/schedules/schedule-record.js";
import { createSchedules, type Schedules } from "../../src/schedules/scheduler.js";
import type { ScheduleCaller } from "../../src/schedules/schedule-book.js";
import type { WorkQueue } from "../../src/runs/queue/work-queue.js";
import { spotOf } from "../../src/adapters/core/inbound.js";
import { conversationAt, upgradeOrigin } from "../../src/adapters/slack/slack-place.js";
import { temporaryFolder } from "./temporary-folder.js";
import { until } from "./until.js";
import { connectDeps, type HarnessConnect } from "./connect-stand-in.js";

/** Timers that run only when the test moves the clock. */
export interface ManualClock extends TimerClock {
  /** Moves the clock to `at`, running each timer due on the way at its own time. */
  advanceTo(at: number): void;
  advance(ms: number): void;
  /** Timers waiting. */
  pending(): number;
}

export function manualClock(start: number): ManualClock {
  let now = start;
  let nextId = 0;
  const timers = new Map<number, { readonly at: number; readonly callback: () => void }>();
  const clock: ManualClock = {
    now: () => now,
    setTimeout(callback, ms) {
      const id = ++nextId;
      timers.set(id, { at: now + Math.max(0, ms), callback });
      return id;
    },
    clearTimeout: (handle) => void timers.delete(handle as number),
    advanceTo(at) {
      for (;;) {
        const due = [...timers.entries()].filter(([, timer]) => timer.at <= at).sort((a, b) => a[1].at - b[1].at)[0];
        if (!due) break;
        timers.delete(due[0]);
        now = Math.max(now, due[1].at);
        due[1].callback();
      }
      now = Math.max(now, at);
    },
    advance: (ms) => clock.advanceTo(now + ms),
    pending: () => timers.size,
  };
  return clock;
}

export interface Shown {
  readonly origin: TaskOrigin;
  readonly outcome: RunOutcome;
}

export interface ScheduleBot {
  readonly service: RunningAgentService;
  readonly schedules: Schedules;
  readonly policy: RunPolicy;
  readonly store: KeyValueStore;
  readonly config: Config;
  /** What the presenter was asked to show, in order. */
  readonly shown: Shown[];
  readonly notices: Array<{ readonly schedule: ScheduleRecord; readonly text: string }>;
  /** What a surface told a requester privately (a Connect link, with its button), in order. */
  readonly told: Array<{ readonly origin: TaskOrigin; readonly text: string; readonly link?: NoteLink }>;
  readonly counted: Array<{ readonly kind: "slot" | "run"; readonly outcome: string; readonly count: number }>;
  /** Waits until every fire in flight and its bookkeeping (and audit entries) are done. */
  settle(): Promise<void>;
  close(): Promise<void>;
}

export interface ScheduleBotOptions {
  readonly model: ScriptedModel;
  readonly storeUrl: string;
  /** The clock every part reads (a ManualClock moves only when the test says). */
  readonly clock: TimerClock;
  readonly env?: Record<string, string>;
  /** Read at every check (change it to block someone at fire time). */
  readonly settings?: () => Settings;
  readonly presence?: (schedule: ScheduleRecord) => Promise<Presence>;
  readonly timeZoneOf?: () => Promise<string | undefined>;
  /** The slot timer; default one on `clock`. */
  readonly timer?: SlotTimer;
  /** The runner's work queue; default in-process. */
  readonly queue?: WorkQueue;
  /** The surfaces' own tools (a write to approve). */
  readonly surfaceTools?: readonly Tool[];
  /** Tools that act as the person, and the Connect links of their pauses (connect-stand-in.ts). */
  readonly connect?: HarnessConnect;
}

export async function startScheduleBot(options: ScheduleBotOptions): Promise<ScheduleBot> {
  const config = loadConfig({ STORE_URL: options.storeUrl, MEMORY_EXTRACT_FACTS: "false", MESSAGE_DEBOUNCE_MS: "0", ...options.env });
  const store = await openStore(config.storeUrl, silentLogger);
  const { clock } = options;
  const current = options.settings ?? (() => OPEN_SETTINGS);
  const settings = { current, path: undefined, onReload: () => undefined, close: () => undefined };
  const policy = createRunPolicy({ settings, store, audit: createAuditLog(store, clock.now), logger: silentLogger, clock: clock.now });
  const counted: ScheduleBot["counted"] = [];
  const metrics: SlotMetrics = {
    slot: (outcome, count = 1) => void counted.push({ kind: "slot", outcome, count }),
    runEnded: (outcome) => void counted.push({ kind: "run", outcome, count: 1 }),
  };
  const timer = options.timer ?? createLocalSlotTimer(silentLogger, clock);
  const schedules = createSchedules({
    store,
    config: config.schedules,
    timer,
    logger: silentLogger,
    clock: clock.now,
    // As app.ts gives it: a schedule stored before origins had a scope gets it from the Slack codec.
    upgrade: (origin) => (origin.surface === "slack" ? upgradeOrigin(origin).origin : origin),
    policy,
    metrics,
    machineTimeZone: "Europe/Lisbon",
  });
  const service = createAgentService({
    config,
    model: options.model,
    store,
    logger: silentLogger,
    clock: clock.now,
    runPolicy: policy,
    observers: [schedules.observer],
    tools: [schedules.tool],
    showSlot: schedules.showSlot,
    ...(options.queue ? { queue: options.queue } : {}),
    ...connectDeps(options.connect, [schedules.tool]),
  });
  const shown: Shown[] = [];
  const notices: ScheduleBot["notices"] = [];
  const told: ScheduleBot["told"] = [];
  for (const surface of ["slack", "console"] as const) {
    service.attach(surface, {
      tools: options.surfaceTools ?? [],
      present: (origin) => ({
        sink: () => {},
        finish: async (outcome) => void shown.push({ origin, outcome }),
        fail: async (error) => {
          throw error;
        },
      }),
      ...(surface === "slack" ? { upgrade: upgradeOrigin } : {}),
      tell: async (origin, text, link) => void told.push({ origin, text, ...(link ? { link } : {}) }),
    });
    schedules.attachSurface(surface, {
      notifyOwner: async (schedule, text) => void notices.push({ schedule, text }),
      ...(options.presence ? { presence: options.presence } : {}),
      ...(options.timeZoneOf ? { timeZoneOf: options.timeZoneOf } : {}),
    });
  }
  await service.start();
  await schedules.start((task, receipt) => service.submit(task, receipt));
  const settle = async () => {
    if ("idle" in timer) await (timer as LocalSlotTimer).idle();
    await schedules.settled();
    await policy.observer.settled();
  };
  return {
    service,
    schedules,
    policy,
    store,
    config,
    shown,
    notices,
    told,
    counted,
    settle,
    async close() {
      await schedules.close();
      await service.close();
      await policy.observer.settled();
      await store.close();
    },
  };
}

export function slackCaller(user: string, options: { channel?: string; isAdmin?: boolean; name?: string } = {}): ScheduleCaller {
  const channel = options.channel ?? "C1";
  const ts = "1700000000.000100";
  return {
    person: { id: user, ...(options.name ? { name: options.name } : {}) },
    // As the Slack surface writes it at intake.
    origin: spotOf("slack", conversationAt({ team: "T1", channel, traceThreadTs: ts, replyThreadTs: ts }), { id: user, roles: [] }).origin,
    isAdmin: options.isAdmin ?? false,
  };
}

export const at = (iso: string) => Date.parse(iso);

export interface ScheduleBots {
  freshStore(): string;
  bot(options: Partial<ScheduleBotOptions> & Pick<ScheduleBotOptions, "clock" | "model">): Promise<ScheduleBot>;
  /** Closes a bot before the test ends, e.g. to start another on its store as after a restart. */
  stop(bot: ScheduleBot): Promise<void>;
}

/** Call at the top of a test file: registers the hooks that create and clean up. */
export function useScheduleBots(): ScheduleBots {
  let folder: Awaited<ReturnType<typeof temporaryFolder>> | undefined;
  let stores = 0;
  const bots: ScheduleBot[] = [];
  beforeAll(async () => {
    folder = await temporaryFolder();
  });
  afterEach(async () => {
    await Promise.all(bots.splice(0).map((bot) => bot.close()));
  });
  afterAll(async () => {
    await folder?.remove();
  });
  const freshStore = () => `sqlite://${folder!.path}/schedules-${++stores}.sqlite`;
  return {
    freshStore,
    async bot(options) {
      const started = await startScheduleBot({ storeUrl: options.storeUrl ?? freshStore(), ...options });
      bots.push(started);
      return started;
    },
    async stop(bot) {
      bots.splice(bots.indexOf(bot), 1);
      await bot.close();
    },
  };
}

/** `schedule <text>` by Ana (U1) in C1 unless another caller is given. */
export function schedule(bot: ScheduleBot, text: string, caller = slackCaller("U1", { name: "Ana" })): Promise<ScheduleCommandResult> {
  return bot.schedules.run({ name: "schedule", text, caller });
}

/** Moves the clock and waits until the slots due fired and `shown` runs were shown (or, without it, all settled). */
export async function advanceTo(bot: ScheduleBot, clock: ManualClock, iso: string, shown?: number): Promise<void> {
  clock.advanceTo(at(iso));
  await bot.settle();
  if (shown !== undefined) await until(() => bot.shown.length >= shown, `${shown} runs shown`);
  await bot.settle();
}

export const answers = (bot: ScheduleBot) =>
  bot.shown.map((entry) => (entry.outcome.status === "answered" ? entry.outcome.answer : "(paused)"));

/** The audit log's kinds, oldest first. */
export const auditKinds = async (bot: ScheduleBot) => (await createAuditLog(bot.store).list({})).map((entry) => entry.kind).reverse();
