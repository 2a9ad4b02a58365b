// The life of the schedule bots one test file starts (see schedule-harness.ts): a temporary
// folder, a fresh SQLite store per bot unless told otherwise, every bot closed after its test,
// and the helpers the schedule tests share.
import { afterAll, afterEach, beforeAll } from "vitest";
import { createAuditLog } from "../../src/governance/audit-log.js";
import type { ScheduleCommandResult } from "../../src/schedules/commands.js";
import { temporaryFolder, until } from "./memory-test-kit.js";
import { slackCaller, startScheduleBot, type ManualClock, type ScheduleBot, type ScheduleBotOptions } from "./schedule-harness.js";

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
